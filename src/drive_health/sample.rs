//! A report with every field filled, as the tape lab's IBM ULT3580-TD6
//! with an LTO-6 cartridge and one critical flag might answer: the
//! renderer's and the JSON's tests read it, and the manual's check walks
//! its field names. Test-only, like the emulated drive.

use super::collect::{report, Answers};
use super::schema::{CapacityJson, DriveReport, HistoryJson};
use crate::tape::health::{Compression, ErrorCounters, Identity, Mam, Snapshot, VolumeStatistics};
use crate::tape::scsi::pages::tape_alert::TapeAlerts;
use crate::tape::DriveStatus;

const GIB: u64 = 1 << 30;

/// Every field known, flags 20 (clean now, critical) and 21 raised.
pub fn full_report() -> DriveReport {
    let mut alerts = TapeAlerts::default();
    alerts.insert(20);
    alerts.insert(21);
    let status = DriveStatus {
        online: true,
        write_protected: false,
        ..DriveStatus::default()
    };
    let identity = Identity {
        vendor: "IBM".into(),
        product: "ULT3580-TD6".into(),
        revision: "G350".into(),
        serial: Some("LABDRV01".into()),
    };
    let snapshot = Snapshot {
        alerts,
        mam: Some(mam()),
        write_errors: Some(counters(3, 12, 0, 40 * GIB)),
        read_errors: Some(counters(1, 2, 0, 10 * GIB)),
        compression: Some(compression()),
        volume: Some(volume()),
        pages: vec![0x00, 0x02, 0x03, 0x17, 0x1b, 0x2e],
        memory_unread: None,
        unreadable: None,
    };
    let history = HistoryJson {
        volumes_on_record: 14,
        usual_write_rate: Some(158.2e6),
        usual_read_rate: Some(161.0e6),
        usual_capacity: vec![CapacityJson {
            medium: Some("L6".into()),
            bytes: 2_500_000_000_000,
        }],
    };
    let answers = Answers {
        status: Some(status),
        identity: Some(identity),
        snapshot,
        history: Some(history),
        lbp: Some(crate::drive_health::schema::LbpJson {
            offered: vec!["RS-CRC".into()],
            none_because: None,
            now: Some("off".into()),
        }),
        encryption: Some(crate::drive_health::schema::EncryptionJson {
            capable: true,
            not_because: None,
            now: Some("off".into()),
            key_held: Some(false),
            key: None,
        }),
    };
    report("/dev/nst0", answers)
}

fn mam() -> Mam {
    Mam {
        serial: Some("HA1234567".into()),
        barcode: Some("E01001L6".into()),
        manufacturer: Some("FUJIFILM".into()),
        manufactured: Some("20240115".into()),
        load_count: Some(37),
        lifetime_written_bytes: Some(9 * 1024 * GIB),
        lifetime_read_bytes: Some(3 * 1024 * GIB),
        capacity_bytes: Some(2_500_000_000_000),
        remaining_bytes: Some(1_200_000_000_000),
    }
}

fn counters(corrected: u64, retries: u64, uncorrected: u64, bytes: u64) -> ErrorCounters {
    ErrorCounters {
        corrected_fast: Some(corrected),
        corrected_delayed: Some(0),
        retries: Some(retries),
        corrected: Some(corrected),
        algorithm_runs: Some(corrected),
        bytes: Some(bytes),
        uncorrected: Some(uncorrected),
    }
}

fn compression() -> Compression {
    Compression {
        read_ratio_percent: Some(100),
        write_ratio_percent: Some(150),
        host_written_bytes: Some(60 * GIB),
        medium_written_bytes: Some(40 * GIB),
        host_read_bytes: Some(10 * GIB),
        medium_read_bytes: Some(10 * GIB),
    }
}

fn volume() -> VolumeStatistics {
    VolumeStatistics {
        mounts: Some(37),
        datasets_written: Some(41_000),
        datasets_read: Some(10_200),
        recovered_write_errors: Some(3),
        unrecovered_write_errors: Some(0),
        recovered_read_errors: Some(1),
        unrecovered_read_errors: Some(0),
        lifetime_written_bytes: Some(9 * 1024 * GIB),
        lifetime_read_bytes: Some(3 * 1024 * GIB),
        native_capacity_bytes: Some(2_500_000_000_000),
        used_native_capacity_bytes: Some(1_300_000_000_000),
    }
}
