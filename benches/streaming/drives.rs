//! The streaming benchmark's drives: the speed-matching drive of the grid
//! (12 to 40 MB/s in 8 steps) at each speed-check interval and buffer
//! size, issue 46's held-out drive that steps only on its buffer's
//! thresholds, the fixed-speed drive at 40 MB/s, and the old scenarios' 40 to
//! 120 MB/s drives; each with the `--pace=FLOOR:CEILING` range the
//! "tapebuf range" contender is given. `MB` is 1e6 bytes.

use tapebuf::pace::drive_model::DriveSpec;

use crate::inputs::MB;

/// The grid's speed-check intervals, seconds.
pub const SPEED_CHECKS_S: [f64; 3] = [0.002, 0.05, 0.25];
/// The grid's drive buffers, MB.
pub const BUFFERS_MB: [f64; 2] = [4.0, 64.0];
/// The grid's speed-matching range, bytes per second.
const SLOWEST: f64 = 12.0 * MB;
const FASTEST: f64 = 40.0 * MB;

/// A drive model and its key (in TAPEBUF_BENCH_STREAM_DRIVES and the
/// table).
#[derive(Clone)]
pub struct Drive {
    pub key: String,
    pub spec: DriveSpec,
    /// The floor and ceiling "tapebuf range" is told, bytes per second.
    pub range: (f64, f64),
}

/// The grid's speed-matching drive checking its speed every `check_s`,
/// with a `buffer_mb` MB buffer; key `c{ms}ms-b{MB}`, e.g. `c2ms-b4`.
pub fn matching(check_s: f64, buffer_mb: f64) -> Drive {
    let mut spec = DriveSpec::speed_matching(SLOWEST, FASTEST, 8);
    spec.speed_check_s = check_s;
    spec.feed_window_s = (4.0 * check_s).max(0.008);
    spec.buffer_bytes = buffer_mb * MB;
    Drive {
        key: format!("c{:.0}ms-b{buffer_mb:.0}", check_s * 1000.0),
        spec,
        range: (SLOWEST, FASTEST),
    }
}

/// Issue 46's held-out speed-matching drive, key `thresholds`: the same
/// 8 speeds, but it steps up as soon as its 4 MB buffer is over three
/// quarters full and down as soon as it is under a quarter, toward its
/// feed over the last half second, and holds its speed in between.
pub fn thresholds() -> Drive {
    let mut spec = DriveSpec::speed_matching(SLOWEST, FASTEST, 8).stepping_on_thresholds();
    spec.buffer_bytes = 4.0 * MB;
    Drive {
        key: "thresholds".into(),
        spec,
        range: (SLOWEST, FASTEST),
    }
}

/// The grid's fixed-speed drive: 40 MB/s, a 4 MB buffer; "tapebuf range"
/// keeps the grid's one range.
pub fn fixed() -> Drive {
    let mut spec = DriveSpec::fixed_speed(FASTEST);
    spec.buffer_bytes = 4.0 * MB;
    Drive {
        key: "fixed".into(),
        spec,
        range: (SLOWEST, FASTEST),
    }
}

/// The old scenarios' speed-matching drive, 40 to 120 MB/s in 9 steps.
pub fn old_matching() -> Drive {
    Drive {
        key: "m40-120".into(),
        spec: DriveSpec::speed_matching(40.0 * MB, 120.0 * MB, 9),
        range: (40.0 * MB, 120.0 * MB),
    }
}

/// The old scenarios' fixed-speed drive, 120 MB/s.
pub fn old_fixed() -> Drive {
    Drive {
        key: "fixed120".into(),
        spec: DriveSpec::fixed_speed(120.0 * MB),
        range: (40.0 * MB, 120.0 * MB),
    }
}

pub fn describe(spec: &DriveSpec) -> String {
    let speeds: Vec<String> = spec
        .speeds
        .iter()
        .map(|s| format!("{:.0}", s / MB))
        .collect();
    format!(
        "speeds {} MB/s; buffer {:.0} MB; stop = {:.1} s reposition{}, restart at {:.0}% buffer; \
         speed check every {} s on the feed averaged over {} s",
        speeds.join(","),
        spec.buffer_bytes / MB,
        spec.reposition_s,
        if spec.holds_writes_while_repositioning {
            " holding writes"
        } else {
            ""
        },
        spec.restart_fill * 100.0,
        spec.speed_check_s,
        spec.feed_window_s
    )
}
