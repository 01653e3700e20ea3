//! The drive's baseline as the report shows it: how many volumes its
//! history holds, its usual (median) rate writing and reading, and the
//! usual bytes of a full cartridge of each kind. Computed here from the
//! history's volumes until `History::baseline` gives the same figures;
//! then `of` becomes one call to it.

use std::path::Path;

use super::schema::{CapacityJson, HistoryJson};
use crate::tape::health::history::{state_dir, History, VolumeFigures};

/// The history of the drive with serial `serial`, as the report shows
/// it; None when there is no state directory or the file cannot be read.
pub fn load(serial: &str) -> Option<HistoryJson> {
    let dir = state_dir()?;
    load_from(&dir, serial)
}

/// As `load`, from the histories in `dir`.
pub fn load_from(dir: &Path, serial: &str) -> Option<HistoryJson> {
    History::load(dir, serial).ok().map(|h| of(&h))
}

/// The baseline of `history`.
pub fn of(history: &History) -> HistoryJson {
    HistoryJson {
        volumes_on_record: history.volumes.len(),
        usual_write_rate: usual_rate(&history.volumes, true),
        usual_read_rate: usual_rate(&history.volumes, false),
        usual_capacity: usual_capacity(&history.volumes),
    }
}

/// The median bytes/s of the volumes written (or read) that took time.
fn usual_rate(volumes: &[VolumeFigures], writing: bool) -> Option<f64> {
    let rates = volumes
        .iter()
        .filter(|v| v.writing == writing && v.drive_seconds > 0.0 && v.bytes > 0)
        .map(|v| v.bytes as f64 / v.drive_seconds)
        .collect();
    median(rates)
}

/// The median bytes of the full cartridges written, per kind, in the
/// order the kinds first appear.
fn usual_capacity(volumes: &[VolumeFigures]) -> Vec<CapacityJson> {
    let mut kinds: Vec<Option<String>> = Vec::new();
    for v in volumes.iter().filter(|v| v.writing && v.full) {
        if !kinds.contains(&v.medium) {
            kinds.push(v.medium.clone());
        }
    }
    kinds
        .into_iter()
        .filter_map(|medium| {
            let sizes = volumes
                .iter()
                .filter(|v| v.writing && v.full && v.medium == medium)
                .map(|v| v.bytes as f64)
                .collect();
            median(sizes).map(|bytes| CapacityJson {
                medium,
                bytes: bytes as u64,
            })
        })
        .collect()
}

/// The median of `values`; the lower middle one of an even count.
fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some(values[(values.len() - 1) / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn volume(writing: bool, bytes: u64, seconds: f64, full: bool, medium: &str) -> VolumeFigures {
        VolumeFigures {
            when: 0,
            writing,
            bytes,
            drive_seconds: seconds,
            full,
            medium: (!medium.is_empty()).then(|| medium.to_string()),
        }
    }

    #[test]
    fn the_usual_rate_is_the_median_of_each_direction() {
        let history = History {
            volumes: vec![
                volume(true, 100, 1.0, false, ""),
                volume(true, 300, 1.0, false, ""),
                volume(true, 200, 1.0, false, ""),
                volume(false, 50, 1.0, false, ""),
                volume(false, 10, 0.0, false, ""),
            ],
            ..History::default()
        };
        let b = of(&history);
        assert_eq!(b.volumes_on_record, 5);
        assert_eq!(b.usual_write_rate, Some(200.0));
        assert_eq!(b.usual_read_rate, Some(50.0));
        assert!(b.usual_capacity.is_empty());
    }

    #[test]
    fn capacity_counts_only_full_cartridges_written_per_kind() {
        let history = History {
            volumes: vec![
                volume(true, 2_000, 1.0, true, "L6"),
                volume(true, 2_400, 1.0, true, "L6"),
                volume(true, 900, 1.0, false, "L6"),
                volume(true, 1_500, 1.0, true, "L5"),
                volume(false, 9_999, 1.0, true, "L5"),
            ],
            ..History::default()
        };
        let b = of(&history);
        assert_eq!(
            b.usual_capacity,
            vec![
                CapacityJson {
                    medium: Some("L6".into()),
                    bytes: 2_000
                },
                CapacityJson {
                    medium: Some("L5".into()),
                    bytes: 1_500
                },
            ]
        );
    }

    #[test]
    fn an_empty_history_has_no_usual_figures() {
        assert_eq!(
            of(&History::default()),
            HistoryJson {
                volumes_on_record: 0,
                ..HistoryJson::default()
            }
        );
    }
}
