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
        assert_eq!(out.drive.stops(), 0, "{policy:?}");
        assert_eq!(out.underruns, 0);
    }
    // Without pacing the same drive stops again and again.
    let bursts = simulate(matching(), Producer::steady(75.0 * MB, 4000.0 * MB), BURSTS);
    assert!(bursts.drive.stops() >= 2, "stops {}", bursts.drive.stops());
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
    let b = bursts.drive.stops();
    assert!(b >= 8, "bursts stop the drive at every slow phase: {b}");
    assert_paced_beats_bursts("tar-like, 512 MB", &bursts, &auto, &known);
}

/// The targets of issue 31, as issue 46's controller keeps them:
/// `--pace` at most a third of the stops of plain watermarks (issue 31
/// asked a quarter; the controller that no longer risks a stop on a
/// drive it does not know gives up one cell of this grid), `--pace
/// MIN:MAX` at most a tenth, and neither more than 5% slower.
fn assert_paced_beats_bursts(cell: &str, bursts: &Outcome, auto: &Outcome, known: &Outcome) {
    let b = bursts.drive.stops();
    let (a, k) = (auto.drive.stops(), known.drive.stops());
    assert!(a * 3 <= b, "{cell}: --pace {a} stops vs {b}");
    assert!(k * 10 <= b, "{cell}: --pace MIN:MAX {k} stops vs {b}");
    for out in [auto, known] {
        assert!(
            out.elapsed_s <= 1.05 * bursts.elapsed_s,
            "{cell}: {} s vs {} s",
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
    let bursts = simulate(matching(), producer.clone(), BURSTS);
    for policy in [auto(), paced(Some(40.0), Some(120.0))] {
        let out = simulate(matching(), producer.clone(), policy);
        assert!(out.drive.stops() >= 1, "25 MB/s cannot keep 40 MB/s going");
        assert!(
            out.drive.stops() <= bursts.drive.stops(),
            "no more stops than bursts: {policy:?} {} vs {}",
            out.drive.stops(),
            bursts.drive.stops()
        );
        // Only a proven or given floor paces anything.
        let Some(floor) = out.controller.as_ref().unwrap().floor() else {
            continue;
        };
        let lowest = out
            .targets
            .iter()
            .filter_map(|t| t.1)
            .fold(f64::MAX, f64::min);
        assert!(lowest >= floor, "never below the floor: {lowest} < {floor}");
    }
}

#[test]
fn a_fixed_speed_drive_stops_no_more_often_when_paced_than_with_bursts() {
    for producer in [tar_like(4000.0), Producer::steady(75.0 * MB, 3000.0 * MB)] {
        let bursts = simulate(fixed(), producer.clone(), BURSTS);
        // A floor of 40 MB/s given for a drive fixed at 120 is wrong, and
        // is believed: each stop at it raises it, the second ends pacing
        // (`STALLS_BEFORE_BURSTS`), and the phase they shift may cost one.
        for (policy, wrong) in [(auto(), 0), (paced(Some(40.0), Some(120.0)), 3)] {
            let out = simulate(fixed(), producer.clone(), policy);
            let c = out.controller.as_ref().unwrap();
            // Such a drive tells only by stopping.
            assert!(!c.stalls().is_empty(), "{policy:?}: the stops were seen");
            assert!(
                out.drive.stops() <= bursts.drive.stops() + wrong,
                "{policy:?}: {} stops vs {}",
                out.drive.stops(),
                bursts.drive.stops()
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
    assert!(out.drive.stops() > 5, "stops {}", out.drive.stops());
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

// The grid of issue 31: a modest ring, a drive of 12 to 40 MB/s in 8
// steps that re-decides its speed every 2, 50 or 250 ms, with a 4 or
// 64 MB buffer, and tar's irregular rhythm (the same phases as
// `benches/streaming.rs`: seed 7).

const MIB: f64 = 1024.0 * 1024.0;

/// A speed-matching drive of the grid.
pub(crate) fn grid_drive(check_s: f64, buffer_mb: f64) -> DriveSpec {
    let mut d = DriveSpec::speed_matching(12.0 * MB, 40.0 * MB, 8);
    d.speed_check_s = check_s;
    d.feed_window_s = (4.0 * check_s).max(0.008);
    d.buffer_bytes = buffer_mb * MB;
    d
}

fn grid_fixed() -> DriveSpec {
    let mut d = DriveSpec::fixed_speed(40.0 * MB);
    d.buffer_bytes = 4.0 * MB;
    d
}

/// Bursts at 60 MB/s of 0.1 to 0.5 s between stretches at 8 MB/s of 0.1
/// to 1 s: about 26 MB/s on average, inside the drive's range.
pub(crate) fn irregular() -> Producer {
    Producer::irregular(
        (60.0 * MB, (0.1, 0.5)),
        (8.0 * MB, (0.1, 1.0)),
        7,
        600.0 * MB,
    )
}

/// Bursts at 60 MB/s of 3 to 5 s between stretches at 8 MB/s of 6 to
/// 10 s: each burst is longer than a 128 MiB ring holds.
fn long_bursts() -> Producer {
    Producer::irregular(
        (60.0 * MB, (3.0, 5.0)),
        (8.0 * MB, (6.0, 10.0)),
        7,
        900.0 * MB,
    )
}

fn in_ring(ring_mib: f64, drive: DriveSpec, producer: Producer, policy: Policy) -> Outcome {
    let setup = Setup {
        drive,
        producer,
        ring_bytes: ring_mib * MIB,
        block_bytes: 256.0 * 1024.0,
        policy,
    };
    let out = run(&setup, 3600.0);
    assert!(
        out.bytes_written >= setup.producer.total_bytes,
        "every byte"
    );
    out
}

/// mbuffer's way (`-P 90`), `--pace`, and `--pace 12M:40M` on one cell.
pub(crate) fn three_ways(ring_mib: f64, drive: DriveSpec, producer: Producer) -> [Outcome; 3] {
    [BURSTS, auto(), paced(Some(12.0), Some(40.0))]
        .map(|policy| in_ring(ring_mib, drive.clone(), producer.clone(), policy))
}

#[test]
fn a_32_mib_ring_keeps_a_drive_that_reacts_within_50_ms_streaming() {
    for (check_s, buffer_mb) in [(0.002, 4.0), (0.002, 64.0), (0.05, 4.0), (0.05, 64.0)] {
        let [bursts, auto, known] = three_ways(32.0, grid_drive(check_s, buffer_mb), irregular());
        let cell = format!("32 MiB, {check_s} s, {buffer_mb} MB");
        // Issue 31 asked for no stop at all here. Issue 46's controller
        // risks no stop on a drive it does not know, so a dry ring in one
        // of this input's slow phases (8 MB/s, below the drive's 12) may
        // stop it once or twice while it learns: at most two stops, and
        // at most a third of the stops of bursts.
        for (name, out) in [("--pace", &auto), ("--pace MIN:MAX", &known)] {
            let (n, b) = (out.drive.stops(), bursts.drive.stops());
            assert!(n <= 2 && n * 3 <= b, "{cell}: {name} {n} stops vs {b}");
            assert!(out.elapsed_s <= 1.05 * bursts.elapsed_s, "{cell}: {name}");
        }
    }
}

#[test]
fn a_drive_buffer_larger_than_the_ring_gets_the_input_as_it_comes_not_in_lumps() {
    // 64 MB of drive buffer behind a 32 MiB ring: the drive never pushes
    // back, so `--pace` cannot learn a top. Bursts of 29 MiB every second
    // or so stop this slow-deciding drive twice; passing the input's flow
    // on lets its own buffer do the smoothing. (This seed: seed 7 happens
    // to stop it under neither.)
    let producer = Producer::irregular(
        (60.0 * MB, (0.1, 0.5)),
        (8.0 * MB, (0.1, 1.0)),
        8,
        600.0 * MB,
    );
    let [bursts, auto, _] = three_ways(32.0, grid_drive(0.25, 64.0), producer);
    assert!(
        bursts.drive.stops() >= 2,
        "bursts: {}",
        bursts.drive.stops()
    );
    let c = auto.controller.as_ref().expect("paced");
    assert_eq!(c.top(), None, "nothing to learn from");
    let at = &auto.drive.stop_times;
    assert!(at.is_empty(), "--pace stopped at {at:?} s");
    assert!(auto.elapsed_s <= bursts.elapsed_s);
}

#[test]
fn a_drive_that_cannot_follow_a_changing_feed_stops_no_more_often_when_paced() {
    // 250 ms between decisions, and a buffer of a tenth of a second: this
    // drive stops even on a feed that ramps at 1 MB/s per second (see the
    // drive model's tests), so no pace short of a constant one holds it.
    let [bursts, auto, known] = three_ways(32.0, grid_drive(0.25, 4.0), irregular());
    let b = bursts.drive.stops();
    assert!(b >= 4, "bursts stop it at every lull: {b}");
    assert!(
        auto.drive.stops() <= b && known.drive.stops() <= b,
        "{} {} vs {b}",
        auto.drive.stops(),
        known.drive.stops()
    );
}

#[test]
fn on_a_fixed_speed_drive_pacing_costs_at_most_two_stops_more_than_bursts() {
    for ring_mib in [16.0, 32.0, 128.0, 512.0] {
        let [bursts, auto, known] = three_ways(ring_mib, grid_fixed(), irregular());
        for out in [&auto, &known] {
            // Such a drive tells only by stopping; each try of the
            // input's mean near the end of a burst may cost one.
            let stalls = out.controller.as_ref().map_or(0, |c| c.stalls().len()) as u64;
            assert!(
                out.drive.stops() <= bursts.drive.stops() + 2,
                "{ring_mib} MiB: {} stops vs {} and {stalls} stalls",
                out.drive.stops(),
                bursts.drive.stops()
            );
        }
    }
}

#[test]
fn a_large_ring_paced_from_its_start_does_not_wait_for_the_high_watermark() {
    let [bursts, auto, known] = three_ways(512.0, grid_drive(0.05, 4.0), irregular());
    // mbuffer's way gathers 90% of 512 MiB (18 s of this input) first.
    assert!(
        known.elapsed_s < bursts.elapsed_s,
        "{} s vs {} s",
        known.elapsed_s,
        bursts.elapsed_s
    );
    // Learning the top needs that burst: --pace alone waits as bursts do.
    assert!(auto.elapsed_s <= 1.02 * bursts.elapsed_s);
    assert_eq!(known.drive.stops(), 0);
}

#[test]
fn bursts_longer_than_the_ring_stop_a_paced_drive_no_more_often_than_bursts() {
    for ring_mib in [16.0, 32.0, 128.0, 512.0] {
        for buffer_mb in [4.0, 64.0] {
            let [bursts, auto, known] =
                three_ways(ring_mib, grid_drive(0.05, buffer_mb), long_bursts());
            for out in [&auto, &known] {
                assert!(
                    out.drive.stops() <= bursts.drive.stops(),
                    "{ring_mib} MiB, {buffer_mb} MB: {} vs {}",
                    out.drive.stops(),
                    bursts.drive.stops()
                );
            }
        }
    }
}
