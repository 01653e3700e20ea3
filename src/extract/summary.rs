//! The one line an extract ends with on stderr (unless `-q`): what it
//! wrote and what reading it cost, set against a full read of the backup.

use std::time::Duration;

use super::volume_reader::Cost;
use crate::base::size::{count, Bytes};
use crate::base::utc::parse_utc_timestamp;

/// `extract: 3 members, 1.25 MiB read of the backup's 2.00 GiB (0.06%),
/// 1 volume, 2 seeks, 0.4 s; a full read would have read 2.00 GiB (the
/// backup took 41.2 s to write)`: the backup's own time, from its
/// manifest, stands for a full read's, which runs at about its speed.
pub fn line(
    members: u64,
    cost: &Cost,
    backup_bytes: u64,
    took: Duration,
    backup_took: Option<f64>,
) -> String {
    let percent = if backup_bytes == 0 {
        0.0
    } else {
        cost.bytes as f64 * 100.0 / backup_bytes as f64
    };
    format!(
        "extract: {}, {} read of the backup's {} ({percent:.2}%), {}, {}, {:.1} s; a full read would have read {}",
        count(members, "member"),
        Bytes(cost.bytes),
        Bytes(backup_bytes),
        count(u64::from(cost.volumes), "volume"),
        count(cost.seeks, "seek"),
        took.as_secs_f64(),
        Bytes(backup_bytes)
    ) + &backup_took.map_or(String::new(), |s| format!(" (the backup took {s:.1} s to write)"))
}

/// The seconds the backup took, from its manifest's `started` and `ended`.
pub fn backup_seconds(started: &str, ended: &str) -> Option<f64> {
    let (from, to) = (parse_utc_timestamp(started)?, parse_utc_timestamp(ended)?);
    (to >= from).then_some((to - from) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_sets_the_bytes_read_against_a_full_read() {
        let cost = Cost {
            bytes: 1 << 20,
            volumes: 1,
            seeks: 2,
        };
        let text = line(3, &cost, 1 << 30, Duration::from_millis(400), None);
        assert_eq!(
            text,
            "extract: 3 members, 1.00 MiB read of the backup's 1.00 GiB (0.10%), 1 volume, 2 seeks, 0.4 s; a full read would have read 1.00 GiB"
        );
        let took = backup_seconds("2026-11-27T03:58:37Z", "2026-11-27T04:00:38Z");
        assert_eq!(took, Some(121.0));
        let text = line(3, &cost, 1 << 30, Duration::from_millis(400), took);
        assert!(
            text.ends_with("1.00 GiB (the backup took 121.0 s to write)"),
            "{text}"
        );
        assert_eq!(
            backup_seconds("2026-11-27T04:00:38Z", "2026-11-27T03:58:37Z"),
            None
        );
    }
}
