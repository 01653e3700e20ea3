//! The streaming benchmark's producer schedule: phases of (seconds of
//! work, bytes per second), repeated, on the producer's own work clock.
//! Rates are in bytes per second.

/// A producer: phases of (seconds of work, bytes per second), repeated.
#[derive(Clone)]
pub struct Schedule {
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

    /// Work seconds until `bytes` are due: the stream's length when the
    /// producer never waits.
    pub fn seconds_for(&self, bytes: f64) -> f64 {
        let cycle = self.cycle_s();
        let per_cycle = self.mean_rate() * cycle;
        let cycles = (bytes / per_cycle).floor();
        let mut left = bytes - cycles * per_cycle;
        let mut t = cycles * cycle;
        for &(len, rate) in &self.phases {
            let d = (left / rate).min(len);
            t += d;
            left -= d * rate;
            if left <= 0.0 {
                break;
            }
        }
        t
    }
}
