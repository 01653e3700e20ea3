//! Issue 46's held-out drives on the simulated clock: models no one tuned
//! the controller to, beside plain `-P 90` bursts (what mbuffer does).
//! `benches/streaming.rs` runs the same drives in real time beside the
//! real mbuffer.

use tapebuf::pace::drive_model::DriveSpec;

use crate::pacing::{grid_drive, irregular, three_ways};

/// Issue 46's held-out speed-matching drive: the grid's 8 speeds and 4 MB
/// buffer, but it steps only on its buffer's thresholds, at once: up when
/// over three quarters full, down when under a quarter, toward its feed
/// over the last half second.
fn thresholds_drive() -> DriveSpec {
    grid_drive(0.002, 4.0).stepping_on_thresholds()
}

#[test]
fn a_drive_stepping_on_its_buffer_thresholds_stops_a_third_as_often_as_with_bursts() {
    let [bursts, auto, known] = three_ways(32.0, thresholds_drive(), irregular());
    let b = bursts.drive.stops();
    assert!(b >= 6, "bursts stop it at most lulls: {b}");
    for (name, out) in [("--pace", &auto), ("--pace MIN:MAX", &known)] {
        let n = out.drive.stops();
        assert!(n * 3 <= b, "{name}: {n} stops vs {b}");
        assert!(out.elapsed_s <= 1.05 * bursts.elapsed_s, "{name}");
    }
}
