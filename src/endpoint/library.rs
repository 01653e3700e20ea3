//! A tape library in a run (`--changer`): which changer, each tape
//! endpoint's pool and drive element, and cleaning. The changer is opened
//! once, when the first tape endpoint that uses it opens, and shared by
//! every endpoint of the run, so that the robot's moves are one at a time.
//! Pools and drive elements are handed out in the order the tape
//! endpoints open, which is the order of the command line.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::base::sync::lock;
use crate::tape::changer::{find_drive, Changer, Inventory, MediumChanger};
use crate::tape::drive::char_devices::{CharDevice, Verdict};
use crate::tape::loader::{Loader, LoaderBuilder, LoaderSettings, Pool, SharedChanger, Wanted};
use crate::tape::Access;
use crate::volume::change::DEFAULT_COMMAND_TIMEOUT;
use crate::volume::ChangePolicy;

/// The library settings of a run, checked.
#[derive(Debug, Clone)]
pub struct LibrarySettings {
    /// `--changer`.
    pub changer: PathBuf,
    /// `--slots` or `--barcodes`, one per tape endpoint in order; one
    /// entry may serve a single tape endpoint.
    pub pools: Vec<Pool>,
    /// `--drive-element`, one per tape endpoint in order, when given.
    pub drive_elements: Vec<usize>,
    /// `--clean`.
    pub clean: bool,
    /// The changer once opened, and how many tape endpoints took theirs.
    shared: Arc<Shared>,
}

/// What every copy of the settings shares.
#[derive(Default)]
struct Shared {
    changer: Mutex<Option<SharedChanger>>,
    taken: AtomicUsize,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Shared({} taken)", self.taken.load(Ordering::Relaxed))
    }
}

/// What the loader of one tape endpoint loads.
pub enum Load {
    /// Writing: the endpoint's pool.
    Write,
    /// Reading a backup whose manifest names each volume's cartridge.
    Barcodes(Vec<String>),
    /// Reading without barcodes: the endpoint's pool, in order.
    Read,
}

impl LibrarySettings {
    pub fn new(
        changer: PathBuf,
        pools: Vec<Pool>,
        drive_elements: Vec<usize>,
        clean: bool,
    ) -> LibrarySettings {
        LibrarySettings {
            changer,
            pools,
            drive_elements,
            clean,
            shared: Arc::default(),
        }
    }

    /// The loader for the next tape endpoint to open, the drive `node`:
    /// its drive element found by serial number (or `--drive-element`),
    /// and its pool or barcodes. The error is one line that names the flag
    /// or the device.
    pub fn loader(
        &self,
        node: &Path,
        load: Load,
        access: Access,
        timeout: Option<Duration>,
    ) -> Result<LoaderBuilder, String> {
        let ordinal = self.shared.taken.fetch_add(1, Ordering::SeqCst);
        let changer = self.open()?;
        let inventory = {
            let mut robot = lock(&changer);
            Inventory::read(&mut **robot).map_err(|e| self.said(e))?
        };
        let forced = self.drive_elements.get(ordinal).copied();
        if !self.drive_elements.is_empty() && forced.is_none() {
            return Err(format!(
                "--drive-element: {} given for more tape endpoints; give one per tape endpoint, in order",
                self.drive_elements.len()
            ));
        }
        let drive = find_drive(node, &inventory, forced).map_err(|e| e.to_string())?;
        let wanted = match load {
            Load::Barcodes(barcodes) => Wanted::Barcodes(barcodes),
            Load::Write | Load::Read => Wanted::Pool(self.pool(ordinal, node, access)?),
        };
        let settings = LoaderSettings {
            drive,
            device: node.display().to_string(),
            wanted,
            clean: self.clean,
            timeout,
        };
        Ok(Loader::builder(changer, settings))
    }

    /// The pool of tape endpoint `ordinal`.
    fn pool(&self, ordinal: usize, node: &Path, access: Access) -> Result<Pool, String> {
        let flag = "--slots/--barcodes";
        match (self.pools.len(), self.pools.get(ordinal)) {
            (0, _) => Err(format!(
                "{}: --changer: {} needs {flag} to say which cartridges it may load{}",
                node.display(),
                match access {
                    Access::Write => "writing",
                    Access::Read => "reading without a manifest",
                },
                match access {
                    Access::Write => "; tapebuf never writes a cartridge nobody named",
                    Access::Read => "",
                }
            )),
            (_, Some(pool)) => Ok(pool.clone()),
            (n, None) => Err(format!(
                "{flag}: {n} pool{} for more tape endpoints; give one per tape endpoint, in the order of the outputs",
                if n == 1 { "" } else { "s" }
            )),
        }
    }

    /// The run's changer, opened the first time it is asked for.
    fn open(&self) -> Result<SharedChanger, String> {
        let mut slot = lock(&self.shared.changer);
        if let Some(changer) = slot.as_ref() {
            return Ok(Arc::clone(changer));
        }
        let opened: Box<dyn MediumChanger> =
            Box::new(Changer::open(&self.changer).map_err(|e| self.said(e))?);
        let shared: SharedChanger = Arc::new(Mutex::new(opened));
        *slot = Some(Arc::clone(&shared));
        Ok(shared)
    }

    /// A changer error, naming the flag when the error does not name the
    /// device.
    fn said(&self, e: impl std::fmt::Display) -> String {
        let text = e.to_string();
        let path = self.changer.display().to_string();
        if text.contains(&path) {
            format!("--changer {text}")
        } else {
            format!("--changer {path}: {text}")
        }
    }

    /// The change policy of the endpoint `node`, with its loader, when
    /// `node` is a local tape drive; None for anything else, which the
    /// library does not serve.
    pub fn policy_for(
        &self,
        node: &Path,
        base: &ChangePolicy,
        load: Load,
        access: Access,
        quiet: bool,
    ) -> Result<Option<ChangePolicy>, String> {
        let is_tape =
            CharDevice::at_path(node).is_some_and(|d| matches!(d.verdict(), Verdict::Tape { .. }));
        if !is_tape {
            return Ok(None);
        }
        // A run waits for the operator no longer than for a change command.
        let timeout = base.timeout.unwrap_or(DEFAULT_COMMAND_TIMEOUT);
        let loader = self
            .loader(node, load, access, Some(timeout))?
            .quiet(quiet)
            .build();
        Ok(Some(ChangePolicy {
            loader: Some(loader),
            ..base.clone()
        }))
    }

    /// How many tape endpoints took a loader, and whether that fits the
    /// pools given: more pools than tape endpoints is a mistake.
    pub fn unused_pools(&self) -> Option<String> {
        let taken = self.shared.taken.load(Ordering::SeqCst);
        (self.pools.len() > 1 && self.pools.len() > taken).then(|| {
            format!(
                "--slots/--barcodes: {} pools for {taken} tape endpoint{}; give one per tape endpoint, in the order of the outputs",
                self.pools.len(),
                if taken == 1 { "" } else { "s" }
            )
        })
    }
}
