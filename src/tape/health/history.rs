//! A drive's own past, as the baseline its health is judged against: for
//! each volume a run wrote or read, its bytes, the seconds the drive
//! spent on them, and whether the cartridge was filled to its end.
//!
//! Where: one small JSON file per drive serial number, `<serial>.json`, in
//! `$XDG_STATE_HOME/tapebuf/drives/` when that variable is set to an
//! absolute path, else in `$HOME/.local/state/tapebuf/drives/` when HOME
//! is absolute; with neither there is no history (`state_dir`). The
//! serial becomes a safe file name: surrounding blanks dropped, every
//! character but `A-Z a-z 0-9 . _ -` replaced by `_`, at most 64
//! characters, and never empty, `.` or `..`.
//!
//! The file: `{"format": 1, "volumes": [...]}`, oldest first. A missing
//! file is an empty history. A file that cannot be read, is not that
//! JSON, has another format number or is over 1 MiB is an `io::Error`
//! naming the file, which the caller shows as one warning; nothing in it
//! can make tapebuf panic or read without bound. `append` keeps the last
//! 200 volumes and writes the file atomically (a temporary file in the
//! same directory, renamed over it), creating the directory with mode
//! 0700 if needed. Two runs on one drive at once (which a drive does not
//! allow) would keep the volumes of whichever wrote last.
//!
//! The judgement (`judge`, and `baseline` for `tapebuf drive`) compares
//! a volume only with volumes of the same direction (written or read)
//! and needs at least 3 of them:
//! - rate, bytes over the drive's seconds, only for volumes of at least
//!   64 MiB that took the drive some time: flagged below 60% of the
//!   median rate;
//! - capacity, only for a volume that ended at the end of the medium,
//!   against full volumes of the same medium (unknown matches unknown):
//!   flagged below 85% of their median.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::size::{bytes_per_s, Bytes, Rate};

/// The most volumes a history keeps, the newest.
pub const KEPT_VOLUMES: usize = 200;
/// The most characters of a medium's name kept in the history.
const MEDIUM_CHARS: usize = 64;
/// The least bytes a volume has for its rate to count: a smaller one is
/// mostly the drive's start and stop.
pub const MIN_RATE_BYTES: u64 = 64 << 20;
/// The least comparable volumes on record before a volume is judged.
pub const MIN_EARLIER: usize = 3;
/// A rate below this share of the median is flagged.
pub const RATE_SHARE: f64 = 0.60;
/// A full cartridge holding less than this share of the median is flagged.
pub const CAPACITY_SHARE: f64 = 0.85;

/// One volume's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VolumeFigures {
    /// When the volume ended, in seconds since the epoch.
    pub when: u64,
    /// True for a volume written, false for one read.
    pub writing: bool,
    pub bytes: u64,
    /// Seconds spent in the drive's write or read calls for the volume.
    pub drive_seconds: f64,
    /// The volume ended at the end of the medium: `bytes` is what the
    /// cartridge held.
    pub full: bool,
    /// The cartridge's kind, as capacity is compared only within one
    /// (the LTO generation from the barcode's last two characters, or
    /// the medium's density), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium: Option<String>,
}

impl VolumeFigures {
    /// Bytes per second in the drive's calls, if the volume is large
    /// enough and timed.
    fn rate(&self) -> Option<f64> {
        let timed = self.drive_seconds.is_finite() && self.drive_seconds > 0.0;
        (timed && self.bytes >= MIN_RATE_BYTES).then(|| bytes_per_s(self.bytes, self.drive_seconds))
    }

    /// The figures as the file keeps them: seconds a number JSON can hold
    /// (NaN would be written as null and damage the file), the medium's
    /// name bounded.
    fn for_file(&self) -> VolumeFigures {
        let mut v = self.clone();
        if !(v.drive_seconds.is_finite() && v.drive_seconds >= 0.0) {
            v.drive_seconds = 0.0;
        }
        if let Some(m) = &mut v.medium {
            if let Some((cut, _)) = m.char_indices().nth(MEDIUM_CHARS) {
                m.truncate(cut);
            }
        }
        v
    }
}

/// Why a volume is flagged.
#[derive(Debug, Clone, PartialEq)]
pub enum Degradation {
    /// The drive moved `now` bytes/s where its median is `usual`.
    Rate { now: f64, usual: f64 },
    /// A full cartridge held `now` bytes where the median is `usual`.
    Capacity { now: u64, usual: u64 },
}

impl Degradation {
    /// One line in words, naming the direction: "writing at 41.0 MB/s,
    /// well below this drive's usual 160.0 MB/s".
    pub fn words(&self, writing: bool) -> String {
        match self {
            Degradation::Rate { now, usual } => {
                let verb = if writing { "writing" } else { "reading" };
                format!(
                    "{verb} at {}, well below this drive's usual {}",
                    Rate(*now),
                    Rate(*usual)
                )
            }
            Degradation::Capacity { .. } => self.to_string(),
        }
    }
}

impl fmt::Display for Degradation {
    /// One line in words; a rate without its direction ("moving data at
    /// ..."), see `words` for one with it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Degradation::Rate { now, usual } => write!(
                f,
                "moving data at {}, well below this drive's usual {}",
                Rate(*now),
                Rate(*usual)
            ),
            Degradation::Capacity { now, usual } => write!(
                f,
                "the cartridge held {}, well below the {} this drive usually fills",
                Bytes(*now),
                Bytes(*usual)
            ),
        }
    }
}

/// What a drive usually does, in one direction, for `tapebuf drive`: the
/// medians `judge` compares with, None (or left out) until there are
/// `MIN_EARLIER` comparable volumes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Baseline {
    /// The median rate in bytes/s.
    pub usual_rate: Option<f64>,
    /// The median bytes a full cartridge held, per medium (None: unknown),
    /// in the medium's order.
    pub usual_capacity: Vec<(Option<String>, u64)>,
    /// Volumes of this direction on record.
    pub volumes_on_record: usize,
}

/// A drive's history, loaded from its file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    pub path: PathBuf,
    pub volumes: Vec<VolumeFigures>,
}

/// The directory that holds the drives' histories, from the environment;
/// without HOME (a cron job or a service may have none), from the user's
/// home directory in the password database.
pub fn state_dir() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").or_else(|| {
        let user = nix::unistd::User::from_uid(nix::unistd::getuid()).ok()??;
        Some(user.dir.into_os_string())
    });
    file::state_dir_from(std::env::var_os("XDG_STATE_HOME"), home)
}

/// The median of `values`, which is not empty; the mean of the middle two
/// for an even count.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// The median of `values` if there are at least `MIN_EARLIER`.
fn usual(values: Vec<f64>) -> Option<f64> {
    (values.len() >= MIN_EARLIER).then(|| median(values))
}

impl History {
    /// The history of the drive with serial number `serial` in `dir`.
    pub fn load(dir: &Path, serial: &str) -> io::Result<History> {
        let path = dir.join(file::name(serial));
        let Some(volumes) = file::read(&path)? else {
            return Ok(History {
                path,
                ..Default::default()
            });
        };
        let mut history = History { path, volumes };
        history.keep_newest();
        Ok(history)
    }

    /// How `now` compares with this history: judge a run's volumes before
    /// appending them.
    pub fn judge(&self, now: &VolumeFigures) -> Vec<Degradation> {
        // As it would be kept: a long medium's name matches its own record.
        let now = &now.for_file();
        let mut found = Vec::new();
        if let Some(rate) = now.rate() {
            if let Some(usual) = usual(self.rates(now.writing)) {
                if rate < RATE_SHARE * usual {
                    found.push(Degradation::Rate { now: rate, usual });
                }
            }
        }
        if now.full {
            let held = self
                .full_volumes(now.writing)
                .filter(|v| v.medium == now.medium)
                .map(|v| v.bytes as f64)
                .collect();
            if let Some(usual) = usual(held) {
                if (now.bytes as f64) < CAPACITY_SHARE * usual {
                    found.push(Degradation::Capacity {
                        now: now.bytes,
                        usual: usual as u64,
                    });
                }
            }
        }
        found
    }

    /// What the drive usually does writing (or reading).
    pub fn baseline(&self, writing: bool) -> Baseline {
        let mut per_medium: BTreeMap<Option<String>, Vec<f64>> = BTreeMap::new();
        for v in self.full_volumes(writing) {
            per_medium
                .entry(v.medium.clone())
                .or_default()
                .push(v.bytes as f64);
        }
        Baseline {
            usual_rate: usual(self.rates(writing)),
            usual_capacity: per_medium
                .into_iter()
                .filter_map(|(medium, held)| usual(held).map(|u| (medium, u as u64)))
                .collect(),
            volumes_on_record: self.direction(writing).count(),
        }
    }

    /// Adds `volumes` and writes the file.
    pub fn append(&mut self, volumes: &[VolumeFigures]) -> io::Result<()> {
        self.volumes
            .extend(volumes.iter().map(VolumeFigures::for_file));
        self.keep_newest();
        file::write(&self.path, &self.volumes)
    }

    fn keep_newest(&mut self) {
        let extra = self.volumes.len().saturating_sub(KEPT_VOLUMES);
        self.volumes.drain(..extra);
    }

    fn direction(&self, writing: bool) -> impl Iterator<Item = &VolumeFigures> {
        self.volumes.iter().filter(move |v| v.writing == writing)
    }

    fn rates(&self, writing: bool) -> Vec<f64> {
        self.direction(writing)
            .filter_map(VolumeFigures::rate)
            .collect()
    }

    fn full_volumes(&self, writing: bool) -> impl Iterator<Item = &VolumeFigures> {
        self.direction(writing).filter(|v| v.full)
    }
}

#[path = "history_file.rs"]
mod file;

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
