//! The pacing grid's families (issue 46): drives and inputs drawn at
//! random from a seed, wide enough that no one tuned the controller to
//! them. The same seed gives the same cells, so any run can be replayed.
//!
//! Drives: 1 to 14 speeds (1 is a fixed-speed drive), the slowest 20 to
//! 120 MB/s and the top up to 3.5 times that; a buffer of 2 MB to 1 GB;
//! a backhitch of 0.3 to 3 s; a speed choice at fixed periods, at once on
//! buffer thresholds, from a window of the feed rate, or by a hysteresis.
//! Inputs: bursty, periodic, heavy-tailed pauses, a mean just below or
//! just above the slowest speed, and recorded traces scaled to a mean
//! near the slowest speed, their shape kept.

use super::drive_model::DriveSpec;
use super::sim::Producer;
use super::speed_choice::SpeedChoice;

const MB: f64 = 1e6;

/// A seeded pseudo-random source (xorshift64*), the same on every host.
#[derive(Debug, Clone)]
pub struct Draw(u64);

impl Draw {
    pub fn new(seed: u64) -> Draw {
        Draw(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform on a log scale: as likely 2-4 as 512-1024.
    pub fn log_between(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp()
    }

    pub fn pick(&mut self, n: usize) -> usize {
        ((self.unit() * n as f64) as usize).min(n - 1)
    }
}

/// A drive from the families in the header.
pub fn drive(d: &mut Draw) -> DriveSpec {
    let slowest = d.between(20.0, 120.0) * MB;
    let steps = 1 + d.pick(14);
    let mut spec = match steps {
        1 => DriveSpec::fixed_speed(slowest),
        n => DriveSpec::speed_matching(slowest, slowest * d.between(1.3, 3.5), n),
    };
    spec.buffer_bytes = d.log_between(2.0, 1000.0) * MB;
    spec.reposition_s = d.between(0.3, 3.0);
    spec.speed_check_s = d.log_between(0.05, 2.0);
    spec.feed_window_s = spec.speed_check_s * d.between(1.0, 8.0);
    spec.choice = match d.pick(4) {
        0 => SpeedChoice::Periodic,
        1 => {
            spec.speed_check_s = 0.001; // "at once"
            SpeedChoice::Thresholds
        }
        2 => SpeedChoice::FeedWindow,
        _ => SpeedChoice::Hysteresis {
            band: d.between(0.05, 0.3),
        },
    };
    spec
}

/// The kinds of input in the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Bursty,
    Periodic,
    HeavyTailedPauses,
    JustBelow,
    JustAbove,
    Trace,
}

pub const INPUT_KINDS: [InputKind; 6] = [
    InputKind::Bursty,
    InputKind::Periodic,
    InputKind::HeavyTailedPauses,
    InputKind::JustBelow,
    InputKind::JustAbove,
    InputKind::Trace,
];

/// An input of `kind` for a drive whose slowest speed is `slowest`,
/// lasting about `seconds` of the producer's work. `traces` are recorded
/// curves of (seconds, cumulative bytes); a `Trace` input without any
/// falls back to a bursty one.
pub fn input(
    d: &mut Draw,
    kind: InputKind,
    slowest: f64,
    seconds: f64,
    traces: &[Vec<(f64, f64)>],
) -> Producer {
    let mean = slowest * d.between(0.5, 1.5);
    let phases = match kind {
        InputKind::Trace if !traces.is_empty() => {
            let t = &traces[d.pick(traces.len())];
            trace_phases(t, slowest * d.between(0.8, 1.2))
        }
        InputKind::Bursty | InputKind::Trace => bursty(d, mean),
        InputKind::Periodic => periodic(d, mean),
        InputKind::HeavyTailedPauses => pauses(d, mean),
        InputKind::JustBelow => {
            let share = d.between(0.9, 0.98);
            jittered(d, slowest * share)
        }
        InputKind::JustAbove => {
            let share = d.between(1.02, 1.1);
            jittered(d, slowest * share)
        }
    };
    let cycle_s: f64 = phases.iter().map(|p| p.0).sum();
    let cycle_bytes: f64 = phases.iter().map(|p| p.0 * p.1).sum();
    Producer {
        total_bytes: cycle_bytes / cycle_s.max(1e-9) * seconds,
        phases,
    }
}

/// Fast and slow stretches of random lengths, the mean about `mean`.
fn bursty(d: &mut Draw, mean: f64) -> Vec<(f64, f64)> {
    let ratio = d.log_between(2.0, 50.0);
    let (fast, slow) = (
        mean * 2.0 * ratio / (1.0 + ratio),
        mean * 2.0 / (1.0 + ratio),
    );
    (0..64)
        .map(|i| match i % 2 {
            0 => (d.log_between(0.05, 5.0), fast),
            _ => (d.log_between(0.05, 5.0), slow),
        })
        .collect()
}

/// A rate that swings around `mean` with a period of 1 to 60 s.
fn periodic(d: &mut Draw, mean: f64) -> Vec<(f64, f64)> {
    let (period, depth) = (d.log_between(1.0, 60.0), d.between(0.1, 0.9));
    (0..32)
        .map(|i| {
            let phase = i as f64 / 32.0 * std::f64::consts::TAU;
            (period / 32.0, mean * (1.0 + depth * phase.sin()))
        })
        .collect()
}

/// Runs at twice `mean` broken by pauses of Pareto length (shape 1.5).
fn pauses(d: &mut Draw, mean: f64) -> Vec<(f64, f64)> {
    let mut phases = Vec::new();
    for _ in 0..64 {
        phases.push((d.log_between(0.1, 4.0), 2.0 * mean));
        let pause = (0.05 * (1.0 - d.unit()).powf(-1.0 / 1.5)).min(60.0);
        phases.push((pause, 0.0));
    }
    phases
}

/// About `mean`, each 0.05 s within 10% of it.
fn jittered(d: &mut Draw, mean: f64) -> Vec<(f64, f64)> {
    (0..200)
        .map(|_| (0.05, mean * d.between(0.9, 1.1)))
        .collect()
}

/// A recorded curve as phases, its rates scaled to a mean of `mean`.
fn trace_phases(curve: &[(f64, f64)], mean: f64) -> Vec<(f64, f64)> {
    let (t_end, bytes_end) = curve.last().copied().unwrap_or((1.0, 1.0));
    let scale = mean / (bytes_end / t_end.max(1e-9)).max(1.0);
    let mut phases = Vec::new();
    let mut last = (0.0, 0.0);
    for &(t, b) in curve {
        if t > last.0 {
            phases.push((t - last.0, (b - last.1) / (t - last.0) * scale));
            last = (t, b);
        }
    }
    phases
}

/// The (t_s, in_bytes) of every `sample` line of a `--stats` recording.
pub fn parse_stats_trace(jsonl: &str) -> Vec<(f64, f64)> {
    let field = |line: &str, name: &str| -> Option<f64> {
        let key = format!("\"{name}\":");
        let rest = &line[line.find(&key)? + key.len()..];
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        rest[..end].trim().parse().ok()
    };
    jsonl
        .lines()
        .filter(|l| l.contains("\"kind\":\"sample\""))
        .filter_map(|l| Some((field(l, "t_s")?, field(l, "in_bytes")?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_drive_and_input() {
        let draw = |seed| {
            let mut d = Draw::new(seed);
            let drive = drive(&mut d);
            let p = input(&mut d, InputKind::Bursty, drive.slowest(), 60.0, &[]);
            (drive, p)
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
    }

    #[test]
    fn drives_span_the_families_ranges() {
        let mut d = Draw::new(1);
        let drives: Vec<DriveSpec> = (0..500).map(|_| drive(&mut d)).collect();
        let speeds: Vec<usize> = drives.iter().map(|s| s.speeds.len()).collect();
        assert_eq!(speeds.iter().min(), Some(&1));
        assert_eq!(speeds.iter().max(), Some(&14));
        assert!(drives
            .iter()
            .all(|s| (2.0 * MB..=1000.0 * MB).contains(&s.buffer_bytes)));
        assert!(drives.iter().all(|s| (0.3..=3.0).contains(&s.reposition_s)));
    }

    #[test]
    fn a_scaled_trace_keeps_its_shape_at_the_asked_mean() {
        let text = "{\"kind\":\"start\"}\n\
            {\"kind\":\"sample\",\"t_s\":1.0,\"in_bytes\":100}\n\
            {\"kind\":\"sample\",\"t_s\":2.0,\"in_bytes\":400}\n";
        let curve = parse_stats_trace(text);
        assert_eq!(curve, vec![(1.0, 100.0), (2.0, 400.0)]);
        let phases = trace_phases(&curve, 20.0);
        assert_eq!(phases, vec![(1.0, 10.0), (1.0, 30.0)]);
    }
}
