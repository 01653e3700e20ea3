//! The drive's baseline as the report shows it: how many volumes its
//! history holds, its usual (median) rate writing and reading, and the
//! usual bytes of a full cartridge of each kind, as `History::baseline`
//! gives them.

use std::path::Path;

use super::schema::{CapacityJson, HistoryJson};
use crate::tape::health::history::{state_dir, History};

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

/// The baseline of `history`: the same medians the run judges by
/// (`History::baseline`).
pub fn of(history: &History) -> HistoryJson {
    let (written, read) = (history.baseline(true), history.baseline(false));
    HistoryJson {
        volumes_on_record: history.volumes.len(),
        usual_write_rate: written.usual_rate,
        usual_read_rate: read.usual_rate,
        usual_capacity: (written.usual_capacity.into_iter())
            .map(|(medium, bytes)| CapacityJson { medium, bytes })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape::health::history::VolumeFigures;

    fn volume(writing: bool, bytes: u64, full: bool, medium: &str) -> VolumeFigures {
        VolumeFigures {
            when: 0,
            writing,
            bytes,
            drive_seconds: bytes as f64 / 100e6,
            full,
            medium: (!medium.is_empty()).then(|| medium.to_string()),
        }
    }

    #[test]
    fn the_report_shows_the_medians_the_run_judges_by() {
        const G: u64 = 1 << 30;
        let history = History {
            volumes: vec![
                volume(true, 2 * G, true, "LTO-6"),
                volume(true, 3 * G, true, "LTO-6"),
                volume(true, 4 * G, true, "LTO-6"),
                volume(false, G, false, ""),
            ],
            ..History::default()
        };
        let b = of(&history);
        assert_eq!(b.volumes_on_record, 4);
        assert_eq!(b.usual_write_rate, history.baseline(true).usual_rate);
        assert!(b.usual_write_rate.is_some());
        assert_eq!(b.usual_read_rate, None, "one volume read is no baseline");
        assert_eq!(
            b.usual_capacity,
            vec![CapacityJson {
                medium: Some("LTO-6".into()),
                bytes: 3 * G
            }]
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
