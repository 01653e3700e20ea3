//! A drive's own past, as the baseline its health is judged against: for
//! each volume a run wrote or read, its bytes, the seconds the drive
//! spent on them, and whether the cartridge was filled to its end. One
//! small JSON file per drive serial number under the user's state
//! directory (`$XDG_STATE_HOME/tapebuf/drives/`, else
//! `~/.local/state/tapebuf/drives/`). A volume whose rate, or a full
//! cartridge whose capacity, falls well below the drive's own median is
//! flagged. (Contract stub: written in its own change.)

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

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

/// Why a volume is flagged.
#[derive(Debug, Clone, PartialEq)]
pub enum Degradation {
    /// The drive moved `now` bytes/s where its median is `usual`.
    Rate { now: f64, usual: f64 },
    /// A full cartridge held `now` bytes where the median is `usual`.
    Capacity { now: u64, usual: u64 },
}

/// A drive's history, loaded from its file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    pub path: PathBuf,
    pub volumes: Vec<VolumeFigures>,
}

/// The directory that holds the drives' histories, from the environment.
pub fn state_dir() -> Option<PathBuf> {
    None
}

impl History {
    /// The history of the drive with serial number `serial` in `dir`.
    pub fn load(dir: &Path, serial: &str) -> io::Result<History> {
        let _ = (dir, serial);
        Ok(History::default())
    }

    /// How `now` compares with this history.
    pub fn judge(&self, now: &VolumeFigures) -> Vec<Degradation> {
        let _ = now;
        Vec::new()
    }

    /// Adds `volumes` and writes the file.
    pub fn append(&mut self, volumes: &[VolumeFigures]) -> io::Result<()> {
        let _ = volumes;
        Ok(())
    }
}
