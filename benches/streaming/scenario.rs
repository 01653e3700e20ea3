//! The streaming benchmark's scenarios: a producer's rate schedule (on
//! its own work clock) and the drive model behind the buffer, with the
//! stream's size. Rates are in bytes per second; `MB` is 1e6 bytes.

use tapebuf::pace::drive_model::DriveSpec;

pub const MB: f64 = 1e6;

/// A producer: phases of (seconds of work, bytes per second), repeated.
pub struct Schedule {
    pub name: &'static str,
    pub phases: Vec<(f64, f64)>,
}

impl Schedule {
    pub fn cycle_s(&self) -> f64 {
        self.phases.iter().map(|p| p.0).sum()
    }

    pub fn mean_rate(&self) -> f64 {
        self.phases.iter().map(|p| p.0 * p.1).sum::<f64>() / self.cycle_s()
    }

    pub fn rate_at(&self, work_s: f64) -> f64 {
        let mut t = work_s % self.cycle_s();
        for &(len, rate) in &self.phases {
            if t < len {
                return rate;
            }
            t -= len;
        }
        self.phases.last().map_or(1.0, |p| p.1)
    }

    /// Bytes due after `work_s` seconds of work.
    pub fn due(&self, work_s: f64) -> f64 {
        let cycle = self.cycle_s();
        let cycles = (work_s / cycle).floor();
        let mut bytes = cycles * self.mean_rate() * cycle;
        let mut t = work_s - cycles * cycle;
        for &(len, rate) in &self.phases {
            let d = t.min(len);
            bytes += d * rate;
            t -= d;
        }
        bytes
    }

    pub fn describe(&self) -> String {
        let phases: Vec<String> = self
            .phases
            .iter()
            .map(|(s, r)| format!("{:.0} MB/s for {s:.0} s", r / MB))
            .collect();
        format!(
            "{}: {} (mean {:.0} MB/s, on the producer's work clock)",
            self.name,
            phases.join(", then "),
            self.mean_rate() / MB
        )
    }
}

pub struct Scenario {
    pub key: &'static str,
    pub schedule: Schedule,
    pub drive_name: &'static str,
    pub drive: DriveSpec,
    pub total_bytes: u64,
}

pub fn describe(spec: &DriveSpec) -> String {
    let speeds: Vec<String> = spec
        .speeds
        .iter()
        .map(|s| format!("{:.0}", s / MB))
        .collect();
    format!(
        "speeds {} MB/s; buffer {:.0} MB; stop = {:.1} s reposition{}, restart at {:.0}% buffer; \
         speed check every {:.2} s on the feed averaged over {:.1} s",
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

/// The tar-like producer: bursts, then a long slow stretch.
pub fn bursty() -> Schedule {
    Schedule {
        name: "bursty tar-like",
        phases: vec![(3.0, 200.0 * MB), (6.0, 20.0 * MB)],
    }
}

/// A producer at one rate.
pub fn steady() -> Schedule {
    Schedule {
        name: "steady",
        phases: vec![(1.0, 75.0 * MB)],
    }
}

/// A drive that matches its speed to the feed, 40 to 120 MB/s in 9 steps.
pub fn matching() -> DriveSpec {
    DriveSpec::speed_matching(40.0 * MB, 120.0 * MB, 9)
}

/// Every scenario, each stream's size multiplied by `scale`.
pub fn scenarios(scale: f64) -> Vec<Scenario> {
    let bytes = |gb: f64| (gb * 1e9 * scale).round() as u64;
    vec![
        Scenario {
            key: "bursty-matching",
            schedule: bursty(),
            drive_name: "speed-matching",
            drive: matching(),
            total_bytes: bytes(8.0),
        },
        Scenario {
            key: "bursty-fixed",
            schedule: bursty(),
            drive_name: "fixed-speed",
            drive: DriveSpec::fixed_speed(120.0 * MB),
            total_bytes: bytes(4.0),
        },
        Scenario {
            key: "steady-matching",
            schedule: steady(),
            drive_name: "speed-matching",
            drive: matching(),
            total_bytes: bytes(3.0),
        },
    ]
}
