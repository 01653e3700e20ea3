//! The streaming benchmark's inputs: what the producer writes, as a rate
//! schedule and a size. The grid's two inputs take their phases from
//! `tapebuf::pace::sim::Producer::irregular` with one fixed seed, so that
//! the simulated runs in the tests and this benchmark see the same input;
//! the old scenarios' two inputs are kept for them. Rates are in bytes
//! per second; `MB` is 1e6 bytes.

use tapebuf::pace::sim::Producer;

use crate::schedule::Schedule;

pub const MB: f64 = 1e6;

/// The seed of the irregular inputs' phase lengths (the simulated grid in
/// the tests uses the same one).
pub const SEED: u64 = 7;

/// A producer's schedule and the stream's size.
pub struct Input {
    /// Its key in TAPEBUF_BENCH_STREAM_INPUTS and in the table.
    pub key: &'static str,
    pub about: String,
    pub schedule: Schedule,
    /// Bytes in a run at scale 1.
    pub bytes: f64,
}

/// Fast and slow phases, (bytes per second, (shortest, longest seconds)),
/// alternating with pseudo-random lengths from `SEED`.
fn alternating(
    key: &'static str,
    name: &str,
    fast: (f64, (f64, f64)),
    slow: (f64, (f64, f64)),
    bytes: f64,
) -> Input {
    let producer = Producer::irregular(fast, slow, SEED, bytes);
    let schedule = Schedule {
        phases: producer.phases,
    };
    let phase =
        |(rate, (lo, hi)): (f64, (f64, f64))| format!("{:.0} MB/s for {lo}-{hi} s", rate / MB);
    let about = format!(
        "{key} ({name}): {}, then {}, repeated; phase lengths pseudo-random from seed {SEED} \
         (Producer::irregular); mean {:.1} MB/s; {:.0} MB",
        phase(fast),
        phase(slow),
        bytes / MB / schedule.seconds_for(bytes),
        bytes / MB
    );
    Input {
        key,
        about,
        schedule,
        bytes,
    }
}

/// Tar's rhythm of runs of big and small files: short bursts at 60 MB/s
/// between short slow stretches at 8 MB/s; about 600 MB.
pub fn irregular() -> Input {
    alternating(
        "irregular",
        "irregular tar-like",
        (60.0 * MB, (0.1, 0.5)),
        (8.0 * MB, (0.1, 1.0)),
        600.0 * MB,
    )
}

/// Bursts longer than the small rings hold: 60 MB/s for 3-5 s, then
/// 8 MB/s for 6-10 s; about 900 MB.
pub fn long_bursts() -> Input {
    alternating(
        "long",
        "long bursts",
        (60.0 * MB, (3.0, 5.0)),
        (8.0 * MB, (6.0, 10.0)),
        900.0 * MB,
    )
}

/// A fixed schedule, for the old scenarios; their sizes are their own.
fn fixed(key: &'static str, phases: Vec<(f64, f64)>) -> Input {
    let schedule = Schedule { phases };
    let phases: Vec<String> = schedule
        .phases
        .iter()
        .map(|(s, r)| format!("{:.0} MB/s for {s:.0} s", r / MB))
        .collect();
    Input {
        key,
        about: format!(
            "{key}: {} (mean {:.0} MB/s)",
            phases.join(", then "),
            schedule.mean_rate() / MB
        ),
        schedule,
        bytes: 0.0,
    }
}

/// The old tar-like producer: bursts, then a long slow stretch.
pub fn bursty() -> Input {
    fixed("bursty", vec![(3.0, 200.0 * MB), (6.0, 20.0 * MB)])
}

/// The old producer at one rate.
pub fn steady() -> Input {
    fixed("steady", vec![(1.0, 75.0 * MB)])
}
