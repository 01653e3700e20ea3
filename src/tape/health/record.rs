//! What a run saw of one drive's health, volume by volume, shared between
//! the thread that drives it (`watch.rs` writes) and the observers (the
//! summary, the JSON, the stats file and the manifest read).

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::critical;
use crate::base::sync::lock;
use crate::tape::scsi::pages::identity::Identity;
use crate::tape::scsi::pages::mam::Mam;
use crate::tape::scsi::pages::tape_alert::{self, TapeAlerts, CLEAN_NOW};

/// One TapeAlert flag, named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alert {
    pub flag: u8,
    pub name: String,
    pub critical: bool,
}

impl Alert {
    pub fn of(flag: u8) -> Alert {
        Alert {
            flag,
            name: tape_alert::name(flag).to_string(),
            critical: critical::is_critical(flag),
        }
    }
}

/// What one volume's drive and cartridge said, from the volume's start to
/// its end.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VolumeHealth {
    /// The volume, from 1.
    pub volume: u32,
    /// The cartridge's memory, read when the volume began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cartridge: Option<Mam>,
    /// TapeAlert flags the drive raised while the volume was in it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tape_alerts: Vec<Alert>,
    /// Errors the drive corrected writing (or reading) the volume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_errors: Option<u64>,
    /// Records the drive wrote again (or read again) to get them right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u64>,
    /// Errors the drive could not correct.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncorrected_errors: Option<u64>,
    /// Records tapebuf wrote or read on the volume, and their bytes (the
    /// volume's trailer included: the drive wrote it too).
    pub records: u64,
    pub bytes: u64,
    /// The volume was written to the end of the medium.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub full: bool,
    /// The drive's compression ratio on the volume, times 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression_percent: Option<u64>,
    /// Seconds spent in the drive's write or read calls.
    pub drive_seconds: f64,
    /// Why the drive looks worse than its own history, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub degraded: Vec<String>,
}

impl VolumeHealth {
    /// The flags as a set.
    pub fn alerts(&self) -> TapeAlerts {
        let mut set = TapeAlerts::default();
        for a in &self.tape_alerts {
            set.insert(a.flag);
        }
        set
    }

    /// Adds the flags in `alerts`.
    pub fn add_alerts(&mut self, alerts: TapeAlerts) {
        let set = self.alerts().union(alerts);
        self.tape_alerts = set.flags().map(Alert::of).collect();
    }

    /// Retries per hundred records, when both are known.
    pub fn retry_percent(&self) -> Option<f64> {
        let retries = self.retries?;
        (self.records > 0).then(|| retries as f64 * 100.0 / self.records as f64)
    }
}

/// The health of one drive through a run.
#[derive(Debug, Default)]
pub struct HealthLog {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    identity: Option<Identity>,
    volumes: Vec<VolumeHealth>,
    unreadable: Option<String>,
    cleaned: bool,
    history_problem: Option<String>,
    asking: std::time::Duration,
}

impl HealthLog {
    pub fn new() -> Arc<HealthLog> {
        Arc::new(HealthLog::default())
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        lock(&self.inner)
    }

    pub fn set_identity(&self, identity: Option<Identity>) {
        self.inner().identity = identity;
    }

    /// The drive's identity, if it gave one.
    pub fn identity(&self) -> Option<Identity> {
        self.inner().identity.clone()
    }

    /// Why the drive's health could not be read, if it could not.
    pub fn set_unreadable(&self, why: String) {
        self.inner().unreadable.get_or_insert(why);
    }

    pub fn unreadable(&self) -> Option<String> {
        self.inner().unreadable.clone()
    }

    /// Adds `spent` to the time spent asking the drive.
    pub fn add_asking(&self, spent: std::time::Duration) {
        self.inner().asking += spent;
    }

    /// The time spent asking the drive for its health, in all.
    pub fn asking(&self) -> std::time::Duration {
        self.inner().asking
    }

    /// Why the drive's history could not be read or kept ("PATH: why").
    pub fn set_history_problem(&self, why: String) {
        self.inner().history_problem.get_or_insert(why);
    }

    pub fn history_problem(&self) -> Option<String> {
        self.inner().history_problem.clone()
    }

    /// Volume `number`'s record, if it has one.
    pub fn volume(&self, number: u32) -> Option<VolumeHealth> {
        self.inner()
            .volumes
            .iter()
            .find(|v| v.volume == number)
            .cloned()
    }

    /// The library cleaned the drive during the run: "clean now" was
    /// answered.
    pub fn set_cleaned(&self) {
        self.inner().cleaned = true;
    }

    /// Volume `number`'s record, made if new, changed by `change`.
    pub fn update(&self, number: u32, change: impl FnOnce(&mut VolumeHealth)) {
        let mut inner = self.inner();
        let at = match inner.volumes.iter().position(|v| v.volume == number) {
            Some(at) => at,
            None => {
                inner.volumes.push(VolumeHealth {
                    volume: number,
                    ..VolumeHealth::default()
                });
                inner.volumes.len() - 1
            }
        };
        change(&mut inner.volumes[at]);
    }

    /// Each volume's record, in order.
    pub fn volumes(&self) -> Vec<VolumeHealth> {
        let mut v = self.inner().volumes.clone();
        v.sort_by_key(|h| h.volume);
        v
    }

    /// Every flag raised in the run.
    pub fn alerts(&self) -> TapeAlerts {
        self.inner()
            .volumes
            .iter()
            .fold(TapeAlerts::default(), |all, v| all.union(v.alerts()))
    }

    /// The critical flags raised in the run; "clean now" not when the
    /// library cleaned the drive.
    pub fn critical(&self) -> TapeAlerts {
        let mut set = critical::critical(self.alerts());
        if self.inner().cleaned && set.contains(CLEAN_NOW) {
            let mut without = TapeAlerts::default();
            for f in set.flags().filter(|&f| f != CLEAN_NOW) {
                without.insert(f);
            }
            set = without;
        }
        set
    }
}
