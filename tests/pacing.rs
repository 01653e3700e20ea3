//! Adaptive pacing (`--pace`) on the simulated clock: the controller, the
//! ring and a timing model of a drive, stepped a millisecond at a time
//! (`tapebuf::pace::sim`). Each test states a behaviour the issue asked
//! for, in stops of the modelled drive; none of them sleeps.

use tapebuf::pace::drive_model::DriveSpec;
use tapebuf::pace::sim::{run, Outcome, Policy, Producer, Setup};
use tapebuf::pace::{Mode, PaceSettings};

const MB: f64 = 1e6;

/// A speed-matching drive streaming at 40 to 120 MB/s in 9 steps.
fn matching() -> DriveSpec {
    DriveSpec::speed_matching(40.0 * MB, 120.0 * MB, 9)
}

fn fixed() -> DriveSpec {
    DriveSpec::fixed_speed(120.0 * MB)
}

/// tar's rhythm: big files at 200 MB/s for 3 s, small ones at 20 MB/s for
/// 6 s; 80 MB/s on average, inside the drive's range.
fn tar_like(total_mb: f64) -> Producer {
    Producer::bursty((3.0, 200.0 * MB), (6.0, 20.0 * MB), total_mb * MB)
}

const BURSTS: Policy = Policy::Bursts { high_pct: 90 };

fn paced(floor_mb: Option<f64>, top_mb: Option<f64>) -> Policy {
    Policy::Paced {
        high_pct: 90,
        range: PaceSettings {
            floor: floor_mb.map(|f| (f * MB) as u64),
            ceiling: top_mb.map(|t| (t * MB) as u64),
        },
    }
}

fn auto() -> Policy {
    paced(None, None)
}

fn simulate(drive: DriveSpec, producer: Producer, policy: Policy) -> Outcome {
    let setup = Setup {
        drive,
        producer,
        ring_bytes: 512.0 * MB,
        block_bytes: 1.0 * MB,
        policy,
    };
    let out = run(&setup, 3600.0);
    assert!(out.elapsed_s > 0.0, "the run ended");
    assert_eq!(out.bytes_written, setup.producer.total_bytes, "every byte");
    out
}

#[test]
fn a_steady_input_inside_the_range_never_stops_a_speed_matching_drive() {
    for policy in [auto(), paced(Some(40.0), Some(120.0))] {
        let out = simulate(matching(), Producer::steady(75.0 * MB, 4000.0 * MB), policy);
        assert_eq!(out.drive.stops, 0, "{policy:?}");
        assert_eq!(out.underruns, 0);
    }
    // Without pacing the same drive stops again and again.
    let bursts = simulate(matching(), Producer::steady(75.0 * MB, 4000.0 * MB), BURSTS);
    assert!(bursts.drive.stops >= 2, "stops {}", bursts.drive.stops);
}

#[test]
fn a_paced_drive_spends_its_time_near_the_input_rate_not_at_top_speed() {
    let out = simulate(matching(), Producer::steady(75.0 * MB, 4000.0 * MB), auto());
    let at = &out.drive.seconds_at_speed;
    let streaming = out.drive.seconds_streaming();
    // The speeds around 75 MB/s (60 to 90) carry most of the run.
    let near: f64 = at[2..=5].iter().sum();
    assert!(near > 0.8 * streaming, "time at each speed: {at:?}");
}

#[test]
fn a_bursty_input_stops_a_speed_matching_drive_far_less_often_when_paced() {
    let bursts = simulate(matching(), tar_like(8000.0), BURSTS);
    let auto = simulate(matching(), tar_like(8000.0), auto());
    let known = simulate(matching(), tar_like(8000.0), paced(Some(40.0), Some(120.0)));
    let b = bursts.drive.stops;
    assert!(b >= 8, "bursts stop the drive at every slow phase: {b}");
    assert!(
        auto.drive.stops * 4 <= b,
        "auto {} vs {b}",
        auto.drive.stops
    );
    assert!(
        known.drive.stops * 10 <= b,
        "known {} vs {b}",
        known.drive.stops
    );
    for out in [&auto, &known] {
        assert!(
            out.elapsed_s <= 1.05 * bursts.elapsed_s,
            "{} s vs {} s",
            out.elapsed_s,
            bursts.elapsed_s
        );
    }
}

#[test]
fn a_filling_ring_raises_the_rate_to_full_speed() {
    // Input faster than the drive's top: the ring fills, and the writer
    // must then go at full speed, never slower than plain watermarks.
    let producer = Producer::steady(150.0 * MB, 3000.0 * MB);
    let paced = simulate(matching(), producer.clone(), paced(Some(40.0), Some(120.0)));
    let bursts = simulate(matching(), producer, BURSTS);
    let full_speed = paced.targets.iter().filter(|t| t.1.is_none()).count();
    assert!(
        full_speed * 2 > paced.targets.len(),
        "a full ring means full speed: {full_speed} of {} blocks",
        paced.targets.len()
    );
    let rates: Vec<f64> = paced.targets.iter().filter_map(|t| t.1).collect();
    assert!(rates.iter().any(|&r| r > 100.0 * MB), "the rate rose");
    assert!(
        paced.reader_wait_s <= bursts.reader_wait_s + 1.0,
        "the reader waited {} s paced, {} s with bursts",
        paced.reader_wait_s,
        bursts.reader_wait_s
    );
    assert!(paced.elapsed_s <= 1.02 * bursts.elapsed_s);
}

#[test]
fn an_input_below_the_floor_stops_the_drive_only_when_the_ring_runs_dry() {
    let producer = Producer::steady(25.0 * MB, 3000.0 * MB);
    for policy in [auto(), paced(Some(40.0), Some(120.0))] {
        let out = simulate(matching(), producer.clone(), policy);
        assert!(out.drive.stops >= 1, "25 MB/s cannot keep 40 MB/s going");
        assert_eq!(
            out.drive.stops, out.underruns,
            "every stop is a dry ring: {policy:?}"
        );
        let floor = out.controller.as_ref().unwrap().floor().unwrap();
        let lowest = out
            .targets
            .iter()
            .filter_map(|t| t.1)
            .fold(f64::MAX, f64::min);
        assert!(lowest >= floor, "never below the floor: {lowest} < {floor}");
    }
}

#[test]
fn a_fixed_speed_drive_is_noticed_and_gets_bursts_after_one_stop() {
    for producer in [tar_like(4000.0), Producer::steady(75.0 * MB, 3000.0 * MB)] {
        let bursts = simulate(fixed(), producer.clone(), BURSTS);
        for policy in [auto(), paced(Some(40.0), Some(120.0))] {
            let out = simulate(fixed(), producer.clone(), policy);
            let c = out.controller.as_ref().unwrap();
            assert_eq!(c.mode(), Mode::Bursts, "pacing was turned off");
            assert_eq!(c.stalls().len(), 1, "after one stall");
            assert!(c.stalls()[0].held_s >= 0.5);
            // The stop that revealed the drive is the only one added.
            assert!(
                out.drive.stops <= bursts.drive.stops + 1,
                "{policy:?}: {} stops vs {}",
                out.drive.stops,
                bursts.drive.stops
            );
        }
    }
}

#[test]
fn a_drive_that_takes_writes_while_repositioning_gives_no_sign_and_keeps_being_paced() {
    // The limit of stall detection: a drive whose buffer swallows the
    // writes of a whole reposition never holds one, so a fixed-speed drive
    // of that kind is paced, and stops, for the whole run.
    let mut drive = fixed();
    drive.holds_writes_while_repositioning = false;
    let out = simulate(drive, Producer::steady(75.0 * MB, 3000.0 * MB), auto());
    let c = out.controller.as_ref().unwrap();
    assert_eq!(c.mode(), Mode::Pacing);
    assert!(out.drive.stops > 5, "stops {}", out.drive.stops);
}

#[test]
fn a_given_top_rate_paces_from_the_first_burst_without_learning() {
    let out = simulate(
        matching(),
        Producer::steady(75.0 * MB, 2000.0 * MB),
        paced(Some(40.0), Some(120.0)),
    );
    let c = out.controller.as_ref().unwrap();
    assert_eq!(c.top(), Some(120.0 * MB));
    assert!(out.targets.iter().take(300).any(|t| t.1.is_some()));
}

#[test]
fn the_learned_top_rate_is_the_drives_top_speed() {
    let out = simulate(matching(), tar_like(3000.0), auto());
    let top = out.controller.as_ref().unwrap().top().unwrap();
    assert!((top - 120.0 * MB).abs() < 6.0 * MB, "learned {top}");
}
