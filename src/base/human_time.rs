//! A time limit as a person writes it in a message: "10m", "1h", "90s",
//! "0.3s".

use std::time::Duration;

/// A duration as a person writes it: "10m", "1h", "90s", "0.3s".
pub fn human(d: Duration) -> String {
    let secs = d.as_secs();
    match (secs, d.subsec_nanos()) {
        (0, _) | (_, 1..) => format!("{:.1}s", d.as_secs_f64()),
        (s, 0) if s % 3600 == 0 => format!("{}h", s / 3600),
        (s, 0) if s % 60 == 0 => format!("{}m", s / 60),
        (s, _) => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::human;
    use std::time::Duration;

    #[test]
    fn durations_read_as_a_person_writes_them() {
        assert_eq!(human(Duration::from_secs(600)), "10m");
        assert_eq!(human(Duration::from_secs(7200)), "2h");
        assert_eq!(human(Duration::from_secs(90)), "90s");
        assert_eq!(human(Duration::from_millis(300)), "0.3s");
    }
}
