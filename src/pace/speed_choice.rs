//! How a modelled drive picks its next speed: the policies of the pacing
//! grid's drive families (issue 46), one pure function of the speeds, the
//! current speed, the buffer's fill and the fed rate, so that the drive
//! model only decides when to ask.

/// A drive's rule for choosing its speed, asked every `speed_check_s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpeedChoice {
    /// The slowest speed at or above the fed rate, one step up when the
    /// buffer is over three quarters full and down when under a quarter.
    Periodic,
    /// Only on the buffer's thresholds (ask often for "at once"): up
    /// when over three quarters full, down when under a quarter, at
    /// least one step and as far as the fed rate says; else no change.
    Thresholds,
    /// The slowest speed at or above the fed rate, the buffer ignored.
    FeedWindow,
    /// As `FeedWindow`, but only when the fed rate is more than `band`
    /// (a share of the current speed) away from the current speed.
    Hysteresis { band: f64 },
}

/// The index of the next speed in `speeds` (ascending).
pub fn next_speed(
    choice: SpeedChoice,
    speeds: &[f64],
    current: usize,
    fill: f64,
    fed_rate: f64,
) -> usize {
    let last = speeds.len() - 1;
    let matching = matching_speed(speeds, fed_rate);
    match choice {
        SpeedChoice::Periodic if fill > 0.75 => matching.max((current + 1).min(last)),
        SpeedChoice::Periodic if fill < 0.25 => matching.min(current.saturating_sub(1)),
        SpeedChoice::Periodic | SpeedChoice::FeedWindow => matching,
        SpeedChoice::Thresholds if fill > 0.75 => matching.max((current + 1).min(last)),
        SpeedChoice::Thresholds if fill < 0.25 => matching.min(current.saturating_sub(1)),
        SpeedChoice::Thresholds => current,
        SpeedChoice::Hysteresis { band } => {
            let now = speeds[current];
            match (fed_rate - now).abs() > band * now {
                true => matching,
                false => current,
            }
        }
    }
}

/// The slowest speed at or above `fed_rate`, else the top one.
pub fn matching_speed(speeds: &[f64], fed_rate: f64) -> usize {
    speeds
        .iter()
        .position(|&s| s >= fed_rate)
        .unwrap_or(speeds.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEEDS: [f64; 4] = [10.0, 20.0, 30.0, 40.0];

    #[test]
    fn thresholds_change_nothing_between_a_quarter_and_three_quarters() {
        assert_eq!(next_speed(SpeedChoice::Thresholds, &SPEEDS, 2, 0.5, 5.0), 2);
        assert_eq!(next_speed(SpeedChoice::Thresholds, &SPEEDS, 2, 0.8, 5.0), 3);
        assert_eq!(
            next_speed(SpeedChoice::Thresholds, &SPEEDS, 2, 0.1, 35.0),
            1
        );
        assert_eq!(next_speed(SpeedChoice::Thresholds, &SPEEDS, 3, 0.1, 5.0), 0);
    }

    #[test]
    fn hysteresis_keeps_the_speed_while_the_feed_is_inside_its_band() {
        let h = SpeedChoice::Hysteresis { band: 0.2 };
        assert_eq!(next_speed(h, &SPEEDS, 2, 0.5, 26.0), 2);
        assert_eq!(next_speed(h, &SPEEDS, 2, 0.5, 15.0), 1);
    }

    #[test]
    fn a_feed_window_drive_follows_the_fed_rate_whatever_its_fill() {
        let f = SpeedChoice::FeedWindow;
        assert_eq!(next_speed(f, &SPEEDS, 0, 0.9, 25.0), 2);
        assert_eq!(next_speed(f, &SPEEDS, 3, 0.1, 99.0), 3);
    }
}
