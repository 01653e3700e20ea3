//! The manifest of a run in the making, shared between the writer thread
//! (which counts every record as it is committed and finishes each
//! volume) and the command (which writes the manifest at the end, also
//! for a run that failed or was stopped: then it holds what was
//! committed, and says the run was not clean). With a tape library, each
//! volume's barcode and slot come from the loader that loaded it. With
//! `--catalog` every committed record also goes to the catalog's tap
//! (`catalog_tap.rs`), which the manifest names.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::SystemTime;

use super::catalog_tap::CatalogTap;
use super::schema::{CatalogRef, Manifest, Stream, Verified, Volume, SCHEMA, VERSION};
use super::tally::{record_checksum, Checksums, Tally};
use crate::base::sync::lock;
use crate::base::utc::utc_timestamp;
use crate::hash::{HashAlg, Hasher};
use crate::tape::drive::Protection;
use crate::tape::health::HealthLog;
use crate::tape::loader::Loader;

/// What the manifest of a run records, from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recording {
    pub alg: HashAlg,
    /// `--verify`: keep per-record checksums and read each volume back.
    pub verify: bool,
    /// `-q`: say nothing of a volume that verified.
    pub quiet: bool,
}

/// The manifest of the run under way.
pub struct Ledger {
    state: Mutex<State>,
    /// The tape library's loader, which knows each volume's cartridge.
    loader: OnceLock<Loader>,
    /// What the drive said of its health, on a local tape.
    health: OnceLock<Arc<HealthLog>>,
}

struct State {
    recording: Recording,
    block_bytes: u64,
    output: String,
    started: SystemTime,
    done: Vec<Volume>,
    current: Option<Tally>,
    /// The stream's digest once a second volume began: until then it is
    /// the first volume's.
    stream: Option<Hasher>,
    /// `--catalog`: the tap that catalogs the stream.
    catalog: Option<CatalogTap>,
}

impl Ledger {
    pub fn new(recording: Recording, block_bytes: usize, output: &str) -> Arc<Ledger> {
        Arc::new(Ledger {
            state: Mutex::new(State {
                recording,
                block_bytes: block_bytes as u64,
                output: output.to_string(),
                started: SystemTime::now(),
                done: Vec::new(),
                current: None,
                stream: None,
                catalog: None,
            }),
            loader: OnceLock::new(),
            health: OnceLock::new(),
        })
    }

    /// Keeps what the drive says of its health, so that each volume's
    /// entry has its cartridge's memory and the drive's alerts and counters.
    pub fn attach_health(&self, health: Arc<HealthLog>) {
        let _ = self.health.set(health);
    }

    /// Names each volume's cartridge from what `loader` loaded.
    pub fn attach_loader(&self, loader: Loader) {
        let _ = self.loader.set(loader);
    }

    /// `--catalog`: catalogs the stream from here on into `path` (before
    /// the first record).
    pub fn attach_catalog(&self, path: &Path) {
        let mut s = self.lock();
        let mut tap = CatalogTap::new(path);
        if let Some(tally) = &s.current {
            tap.begin(tally.number());
        }
        s.catalog = Some(tap);
    }

    /// Ends the catalog, if there is one (once: later calls say the same).
    pub fn finish_catalog(&self) -> Option<CatalogRef> {
        self.lock().catalog.as_mut().map(CatalogTap::finish)
    }

    /// The catalog file, once finished whole.
    pub fn catalog_file(&self) -> Option<PathBuf> {
        let s = self.lock();
        s.catalog.as_ref()?.file().map(Path::to_path_buf)
    }

    /// A copy of the catalog went onto the tape after the last trailer.
    pub fn set_catalog_on_tape(&self) {
        if let Some(tap) = self.lock().catalog.as_mut() {
            tap.set_on_tape();
        }
    }

    /// The drive's block address of the volume in use's first record.
    pub fn set_tape_start(&self, block: Option<u64>, guarded: Option<&Protection>) {
        let mut state = self.lock();
        if let Some(tally) = state.current.as_mut() {
            tally.set_tape_start(block, guarded);
        }
        let key = guarded.and_then(|p| p.key);
        if let (Some(tap), Some(key)) = (state.catalog.as_mut(), key) {
            tap.set_key(key.to_string());
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    pub fn recording(&self) -> Recording {
        self.lock().recording
    }

    /// Volume `number`, on `name`, is open for writing.
    pub fn begin(&self, number: u32, name: &str) {
        let mut s = self.lock();
        let r = s.recording;
        s.current = Some(Tally::new(number, name, r.alg, r.verify));
        if let Some(tap) = s.catalog.as_mut() {
            tap.begin(number);
        }
    }

    /// One record or write, as committed to the volume in use.
    pub fn record(&self, data: &[u8]) {
        let mut guard = self.lock();
        let s = &mut *guard;
        if let Some(stream) = s.stream.as_mut() {
            stream.update(data);
        }
        // Hashed once for both that keep a checksum per record.
        let checksum = (s.recording.verify || s.catalog.is_some()).then(|| record_checksum(data));
        if let Some(tally) = s.current.as_mut() {
            tally.record(data, checksum);
        }
        if let Some(tap) = s.catalog.as_mut() {
            tap.record(data, checksum);
        }
    }

    /// The volume in use is finished and closed, with `filemarks` after
    /// it: its facts, and the checksums `--verify` reads it back against.
    pub fn end_volume(&self, filemarks: u32) -> Option<(Volume, Option<Checksums>)> {
        let mut s = self.lock();
        let tally = s.current.take()?;
        if s.stream.is_none() {
            s.stream = Some(tally.digest_state().clone());
        }
        let (volume, sums) = tally.finish(filemarks);
        s.done.push(volume.clone());
        Some((volume, sums))
    }

    /// Records what `--verify` found on volume `number`.
    pub fn set_verified(&self, number: u32, verified: Verified) {
        let mut s = self.lock();
        if let Some(v) = s.done.iter_mut().find(|v| v.number == number) {
            v.verified = Some(verified);
        }
    }

    /// The volumes whose read-back failed, as "volume 2: why".
    pub fn verify_failures(&self) -> Vec<String> {
        self.lock()
            .done
            .iter()
            .filter_map(|v| {
                let found = v.verified.as_ref()?;
                (!found.ok).then(|| {
                    format!(
                        "volume {} ({}): {}",
                        v.number,
                        v.name,
                        found.problem.as_deref().unwrap_or("differs")
                    )
                })
            })
            .collect()
    }

    /// The volumes read back, their bytes, and the seconds the
    /// read-backs took.
    pub fn verify_totals(&self) -> (usize, u64, f64) {
        let s = self.lock();
        let read = s.done.iter().filter(|v| v.verified.is_some());
        read.fold((0, 0, 0.0), |(n, bytes, secs), v| {
            let secs_v = v.verified.as_ref().map_or(0.0, |f| f.seconds);
            (n + 1, bytes + v.bytes, secs + secs_v)
        })
    }

    /// The output as named on the command line.
    pub fn output(&self) -> String {
        self.lock().output.clone()
    }

    /// The manifest of what was committed. A volume still open is in it,
    /// marked incomplete.
    pub fn manifest(&self, clean: bool, unclean_because: Option<String>) -> Manifest {
        let catalog = self.finish_catalog();
        let s = self.lock();
        let mut volumes = s.done.clone();
        if let Some(tally) = &s.current {
            volumes.push(tally.snapshot(0, false));
        }
        if let Some(loader) = self.loader.get() {
            for placed in loader.placements() {
                if let Some(v) = volumes.iter_mut().find(|v| v.number == placed.volume) {
                    v.barcode = placed.barcode;
                    v.slot = placed.slot;
                }
            }
        }
        if let Some(health) = self.health.get() {
            for seen in health.volumes() {
                if let Some(v) = volumes.iter_mut().find(|v| v.number == seen.volume) {
                    v.health = Some(seen);
                }
            }
        }
        let bytes = volumes.iter().map(|v| v.bytes).sum();
        let digest = match (&s.stream, &s.current, volumes.first()) {
            (Some(stream), _, _) => stream.clone().finish(),
            (None, Some(tally), _) => tally.digest_state().clone().finish(),
            (None, None, Some(v)) => v.digest.clone(),
            (None, None, None) => Hasher::new(s.recording.alg).finish(),
        };
        Manifest {
            schema: SCHEMA.to_string(),
            version: VERSION,
            tapebuf_version: env!("CARGO_PKG_VERSION").to_string(),
            started: utc_timestamp(s.started),
            ended: utc_timestamp(SystemTime::now()),
            clean,
            unclean_because: if clean { None } else { unclean_because },
            block_bytes: s.block_bytes,
            output: s.output.clone(),
            digest_algorithm: s.recording.alg.name().to_string(),
            stream: Stream { bytes, digest },
            volumes,
            catalog,
        }
    }
}
