//! Tapes and volumes: the mtio ioctls, the drive trait with the real
//! device and an emulated one, volume names, and volume changes. The sinks
//! and sources that write and read volumes live in `sink/volumes.rs` and
//! `source/volumes.rs`; this module holds what they share.

pub mod block_mode;
pub mod change;
pub mod char_devices;
pub mod cleaning;
pub mod drive;
#[cfg(any(test, feature = "test-support"))]
pub mod emulated;
pub mod limits;
pub mod load;
pub mod mtio;
pub mod names;
pub mod ready;

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use change::{ChangePolicy, ChangeRequest};
pub use drive::{Access, Device, Drive, DriveStatus, TapeOp};
pub use names::VolumeNames;

/// When the output is a tape, the writer waits for the ring to be this
/// full before it starts or restarts: a tape stop costs seconds, so one
/// long burst beats many short ones.
pub const TAPE_HIGH_WATERMARK_PCT: u8 = 90;

/// What the volume changes under way are doing ("waiting 12 s for
/// /dev/nst0 to be ready for volume 2"), for the status lines and the bar;
/// None when no change is under way.
pub fn change_notes<'a>(logs: impl Iterator<Item = &'a Arc<VolumeLog>>) -> Option<String> {
    let notes: Vec<String> = logs.filter_map(|v| v.change_note()).collect();
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// What to do with a tape when tapebuf is done with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AtEnd {
    /// Leave it where it is (after the filemark, on a no-rewind device).
    #[default]
    Stay,
    Rewind,
    /// Rewind and eject (MTOFFL).
    Eject,
}

impl AtEnd {
    /// Does this to `drive`, then closes it (an output drive writes its
    /// filemark first if the last operation was a write).
    pub fn finish(self, drive: &mut dyn Drive) -> std::io::Result<()> {
        match self {
            AtEnd::Stay => {}
            AtEnd::Rewind => drive.op(TapeOp::Rewind)?,
            AtEnd::Eject => drive.op(TapeOp::Unload)?,
        }
        drive.close()
    }
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
}

impl VolumeLog {
    pub fn new(name: &str) -> Arc<VolumeLog> {
        Arc::new(VolumeLog {
            name: name.to_string(),
            bytes: Mutex::new(vec![0]),
            changing: AtomicBool::new(false),
            waiting_since: Mutex::new(None),
        })
    }

    /// Adds `n` bytes to the volume in use.
    pub fn add(&self, n: u64) {
        let mut v = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(last) = v.last_mut() {
            *last += n;
        }
    }

    /// Starts the next volume.
    pub fn next(&self) {
        self.bytes.lock().unwrap_or_else(|e| e.into_inner()).push(0);
    }

    /// Volumes begun so far, without copying their byte counts.
    pub fn count(&self) -> usize {
        self.bytes.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn volumes(&self) -> Vec<u64> {
        self.bytes.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn set_changing(&self, on: bool) {
        self.changing.store(on, Relaxed);
    }

    pub fn is_changing(&self) -> bool {
        self.changing.load(Relaxed)
    }

    /// Marks the wait for the drive after a change (part of the change).
    pub fn set_waiting(&self, on: bool) {
        let mut since = self.waiting_since.lock().unwrap_or_else(|e| e.into_inner());
        *since = on.then(Instant::now);
    }

    /// How long the change has waited for the drive so far, if it waits.
    pub fn waiting_for(&self) -> Option<Duration> {
        let since = self.waiting_since.lock().unwrap_or_else(|e| e.into_inner());
        since.map(|t| t.elapsed())
    }

    /// What the change is doing, for the status lines and the bar:
    /// "waiting 12 s for /dev/nst0 to be ready for volume 2", or
    /// "changing /dev/nst0 to volume 2"; None when no change is under way.
    pub fn change_note(&self) -> Option<String> {
        if !self.is_changing() {
            return None;
        }
        let next = self.volumes().len() + 1;
        Some(match self.waiting_for() {
            Some(d) => format!(
                "waiting {} s for {} to be ready for volume {next}",
                d.as_secs(),
                self.name
            ),
            None => format!("changing {} to volume {next}", self.name),
        })
    }

    /// "#1 1048576 bytes, #2 524288 bytes"
    pub fn describe(&self) -> String {
        self.volumes()
            .iter()
            .enumerate()
            .map(|(i, b)| format!("#{} {b} bytes", i + 1))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
