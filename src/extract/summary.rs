//! The one line an extract ends with on stderr (unless `-q`): what it
//! wrote and what reading it cost, set against a full read of the backup.

use std::time::Duration;

use super::volume_reader::Cost;
use crate::base::size::{count, Bytes};

/// `extract: 3 members, 1.25 MiB read of the backup's 2.00 GiB (0.06%),
/// 1 volume, 2 seeks, 0.4 s; a full read would have read 2.00 GiB`.
pub fn line(members: usize, cost: &Cost, backup_bytes: u64, took: Duration) -> String {
    let percent = if backup_bytes == 0 {
        0.0
    } else {
        cost.bytes as f64 * 100.0 / backup_bytes as f64
    };
    format!(
        "extract: {}, {} read of the backup's {} ({percent:.2}%), {}, {}, {:.1} s; a full read would have read {}",
        count(members as u64, "member"),
        Bytes(cost.bytes),
        Bytes(backup_bytes),
        count(u64::from(cost.volumes), "volume"),
        count(cost.seeks, "seek"),
        took.as_secs_f64(),
        Bytes(backup_bytes)
    )
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
        let text = line(3, &cost, 1 << 30, Duration::from_millis(400));
        assert_eq!(
            text,
            "extract: 3 members, 1.00 MiB read of the backup's 1.00 GiB (0.10%), 1 volume, 2 seeks, 0.4 s; a full read would have read 1.00 GiB"
        );
    }
}
