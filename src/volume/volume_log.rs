//! The bytes on each volume of an input or output, shared between the
//! thread that reads or writes the volumes and the observers, and what a
//! volume change under way is doing.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::base::sync::lock;
use crate::tape::health::HealthLog;
use crate::tape::loader::LibraryRecords;
use crate::tape::Protection;

/// What the volume changes under way are doing ("waiting 12 s for
/// /dev/nst0 to be ready for volume 2"), for the status lines and the bar;
/// None when no change is under way.
pub fn change_notes<'a>(logs: impl Iterator<Item = &'a Arc<VolumeLog>>) -> Option<String> {
    let notes: Vec<String> = logs.filter_map(|v| v.change_note()).collect();
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// The bytes on each volume of one input or output, shared between the
/// thread that writes or reads the volumes and the observers. The last
/// entry is the volume in use.
#[derive(Debug)]
pub struct VolumeLog {
    pub name: String,
    bytes: Mutex<Vec<u64>>,
    /// True while a volume change is under way, so that the watchdog does
    /// not mistake an autoloader's minutes for a stall.
    changing: AtomicBool,
    /// Since when the change waits for the drive to be ready, if it does.
    waiting_since: Mutex<Option<Instant>>,
    /// What the tape library's loader did, when a robot changes the
    /// volumes.
    loader: OnceLock<Arc<dyn LibraryRecords>>,
    /// What the drive says of its health, on a local tape drive.
    health: OnceLock<Arc<HealthLog>>,
    /// What a changer is doing for the change ("moving E01002L6 slot 2 →
    /// drive 0"), if it is doing something.
    note: Mutex<Option<String>>,
    /// What became of the volumes' trailers, when it is worth a word (an
    /// output whose filesystem keeps no attributes); for the summary.
    trailer_note: Mutex<Option<String>>,
    /// An input: whether something proved where the stream ends (a
    /// trailer, a manifest), or why not; None until the input ended.
    bounded: Mutex<Option<Result<(), String>>>,
    /// A local tape's logical block protection, as the drive had it on
    /// the last volume opened; None for any other medium.
    protection: Mutex<Option<Protection>>,
}

impl VolumeLog {
    pub fn new(name: &str) -> Arc<VolumeLog> {
        Arc::new(VolumeLog {
            name: name.to_string(),
            bytes: Mutex::new(vec![0]),
            changing: AtomicBool::new(false),
            waiting_since: Mutex::new(None),
            loader: OnceLock::new(),
            health: OnceLock::new(),
            note: Mutex::new(None),
            trailer_note: Mutex::new(None),
            protection: Mutex::new(None),
            bounded: Mutex::new(None),
        })
    }

    /// Keeps `loader`, so that the summary and the stats file can name
    /// each volume's cartridge and each move of the robot.
    pub fn attach_loader(&self, loader: Arc<dyn LibraryRecords>) {
        let _ = self.loader.set(loader);
    }

    /// Keeps what the drive says of its health, for the summary, the JSON
    /// and the stats file.
    pub fn attach_health(&self, health: Arc<HealthLog>) {
        let _ = self.health.set(health);
    }

    /// What the drive said of its health, on a local tape drive.
    pub fn health(&self) -> Option<&Arc<HealthLog>> {
        self.health.get()
    }

    /// What the tape library's loader did, if a robot changes the volumes.
    pub fn loader(&self) -> Option<&Arc<dyn LibraryRecords>> {
        self.loader.get()
    }

    /// Adds `n` bytes to the volume in use.
    pub fn add(&self, n: u64) {
        let mut v = lock(&self.bytes);
        if let Some(last) = v.last_mut() {
            *last += n;
        }
    }

    /// Starts the next volume.
    pub fn next(&self) {
        lock(&self.bytes).push(0);
    }

    /// Volumes begun so far, without copying their byte counts.
    pub fn count(&self) -> usize {
        lock(&self.bytes).len()
    }

    pub fn volumes(&self) -> Vec<u64> {
        lock(&self.bytes).clone()
    }

    pub fn set_changing(&self, on: bool) {
        self.changing.store(on, Relaxed);
    }

    pub fn is_changing(&self) -> bool {
        self.changing.load(Relaxed)
    }

    /// Marks the wait for the drive after a change (part of the change).
    pub fn set_waiting(&self, on: bool) {
        let mut since = lock(&self.waiting_since);
        *since = on.then(Instant::now);
    }

    /// Says what a changer does for the change now, or, with None, that
    /// it is done.
    pub fn set_note(&self, note: Option<String>) {
        *lock(&self.note) = note;
    }

    /// Keeps what the trailers' medium says of them (None leaves it).
    pub fn set_trailer_note(&self, note: Option<String>) {
        if note.is_some() {
            *lock(&self.trailer_note) = note;
        }
    }

    /// Keeps a local tape drive's logical block protection.
    pub fn set_protection(&self, protection: Protection) {
        *lock(&self.protection) = Some(protection);
    }

    /// A local tape drive's logical block protection; None for any other
    /// medium.
    pub fn protection(&self) -> Option<Protection> {
        lock(&self.protection).clone()
    }

    /// What became of the trailers, when it is worth a word.
    pub fn trailer_note(&self) -> Option<String> {
        lock(&self.trailer_note).clone()
    }

    /// An input's end: bounded (Ok) or why nothing proved where it ends.
    pub fn set_bounded(&self, bounded: Result<(), String>) {
        *lock(&self.bounded) = Some(bounded);
    }

    /// Whether an input's end was proved; None for an output, or an input
    /// that has not ended.
    pub fn bounded(&self) -> Option<Result<(), String>> {
        lock(&self.bounded).clone()
    }

    /// How long the change has waited for the drive so far, if it waits.
    pub fn waiting_for(&self) -> Option<Duration> {
        let since = lock(&self.waiting_since);
        since.map(|t| t.elapsed())
    }

    /// What the change is doing, for the status lines and the bar:
    /// "waiting 12 s for /dev/nst0 to be ready for volume 2", what the
    /// changer does ("moving E01002L6 slot 2 → drive 0"), or "changing
    /// /dev/nst0 to volume 2"; None when no change is under way.
    pub fn change_note(&self) -> Option<String> {
        if !self.is_changing() {
            return None;
        }
        let next = self.volumes().len() + 1;
        let note = lock(&self.note).clone();
        Some(match (self.waiting_for(), note) {
            (Some(d), _) => format!(
                "waiting {} s for {} to be ready for volume {next}",
                d.as_secs(),
                self.name
            ),
            (None, Some(note)) => note,
            (None, None) => format!("changing {} to volume {next}", self.name),
        })
    }
}
