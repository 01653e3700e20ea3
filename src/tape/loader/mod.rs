//! Volume changes through a library's changer, without a change command:
//! the [`Loader`] one tape endpoint's volume changes go through when
//! `ChangePolicy::loader` is set (`--changer`).
//!
//! A change for volume n: the drive has already ejected the volume in use
//! (MTOFFL, `next_volume.rs`); the loader moves that cartridge back to its
//! home slot (the slot it was loaded from, else the slot the library says
//! it came from, else the first empty slot), cleans the drive when it asks
//! and `clean` is set (`cleaning_cycle.rs`), chooses the next cartridge (the
//! pool's next candidate, `pool.rs`, or the barcode the manifest names for
//! volume n, wherever it is now, never from another drive) and moves it
//! in. `load.rs` then waits for the drive and refuses a cartridge it
//! cannot use as before; the change asked again marks the refused
//! cartridge, so it is never offered again in this run. When nothing
//! usable is left, the operator is asked once and the library watched
//! (`volume_choice.rs`) up to the change's limit.
//!
//! Every move is recorded ([`MoveRecord`], `robot_move.rs`), with each
//! volume's cartridge ([`Placement`]) and each cleaning
//! ([`CleaningRecord`]). A move cannot be cancelled: a stop is obeyed
//! after the move in flight has finished and been recorded.
//!
//! One type does the work: `impl Loader` is here (the change), in
//! `robot_move.rs`, `volume_choice.rs` and `cleaning_cycle.rs`. None of
//! them touches the loader's state directly: what it has done and knows is
//! the `Ledger`'s, behind its methods; what it says and
//! how it fails is its `Voice`'s; its settings are fixed by the
//! [`LoaderBuilder`] before it is shared.

mod cleaning_cycle;
mod error;
mod ledger;
mod pool;
mod records;
mod robot_move;
mod voice;
mod volume_choice;

pub use error::{LoaderError, LoaderFailure};
pub use pool::{glob, Pool};
pub use records::{CleaningRecord, LibraryRecords, MoveRecord, Placement};
pub use voice::Notices;

#[cfg(test)]
mod pool_tests;

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crossbeam_channel::Receiver;

use crate::base::sync::lock;
use crate::tape::changer::{ElementAddress, Inventory, MediumChanger};
use crate::tape::drive::{Access, Drive};
use ledger::Ledger;
use voice::Voice;

/// One changer per run, shared by its drives; a move holds the lock.
pub type SharedChanger = Arc<Mutex<Box<dyn MediumChanger>>>;

/// How long a cleaning cycle may take before the loader takes the
/// cleaning cartridge back anyway (mhvtl's drive never says it is done).
pub const CLEANING_LIMIT: Duration = Duration::from_secs(120);

/// How often the library is looked at while waiting for the operator or
/// for a cleaning to end.
pub const LIBRARY_POLL: Duration = Duration::from_secs(1);

/// Shows what the loader is doing now on the status line (a robot move,
/// a cleaning, the wait for the operator), or None when it is done.
pub type Note<'a> = &'a dyn Fn(Option<String>);

/// The limit on waiting for the operator without `--change-timeout`.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(3600);

/// Which cartridges the volumes go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    /// The pool's next usable cartridge for each volume.
    Pool(Pool),
    /// Volume n's is barcode `[n - 1]` (a manifest's).
    Barcodes(Vec<String>),
}

/// What one tape endpoint's loader works with.
#[derive(Debug, Clone)]
pub struct LoaderSettings {
    /// The changer's element for this endpoint's drive.
    pub drive: ElementAddress,
    /// The drive's device, for messages.
    pub device: String,
    pub wanted: Wanted,
    /// Clean the drive between volumes when it asks (`--clean`).
    pub clean: bool,
    /// The limit on waiting for the operator (`--change-timeout`).
    pub timeout: Option<Duration>,
}

/// The volume a change wants.
#[derive(Debug, Clone, Copy)]
pub struct Wanting<'a> {
    pub access: Access,
    /// From 1.
    pub volume: u32,
    /// Why the cartridge loaded for it last was refused, when asked again.
    pub refused: Option<&'a str>,
}

struct Inner {
    changer: SharedChanger,
    /// The settings, fixed when the loader was built.
    settings: LoaderSettings,
    voice: Voice,
    poll: Duration,
    cleaning_limit: Duration,
    /// What the loader has done and knows, behind one lock that is never
    /// held during a move.
    ledger: Mutex<Ledger>,
}

/// One tape endpoint's volume changes through the changer; clones share
/// their state.
#[derive(Clone)]
pub struct Loader(Arc<Inner>);

impl fmt::Debug for Loader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loader")
            .field("settings", &self.0.settings)
            .finish_non_exhaustive()
    }
}

/// A loader's settings before it is shared: quiet or not, where its lines
/// go, and how often it looks at the library. Each is fixed when
/// [`LoaderBuilder::build`] makes the [`Loader`]; nothing changes them
/// afterwards.
pub struct LoaderBuilder {
    changer: SharedChanger,
    settings: LoaderSettings,
    quiet: bool,
    notices: Option<Notices>,
    poll: Duration,
    cleaning_limit: Duration,
}

impl LoaderBuilder {
    /// The default settings: not quiet, lines on stderr, the library
    /// looked at every [`LIBRARY_POLL`].
    fn new(changer: SharedChanger, settings: LoaderSettings) -> LoaderBuilder {
        LoaderBuilder {
            changer,
            settings,
            quiet: false,
            notices: None,
            poll: LIBRARY_POLL,
            cleaning_limit: CLEANING_LIMIT,
        }
    }

    /// Keeps the lines about moves and skips off stderr (`-q`); a call
    /// for the operator is still said.
    pub fn quiet(mut self, quiet: bool) -> LoaderBuilder {
        self.quiet = quiet;
        self
    }

    /// Sends the loader's lines to `notices` instead of stderr.
    pub fn notices(mut self, notices: Notices) -> LoaderBuilder {
        self.notices = Some(notices);
        self
    }

    /// Looks at the library every `poll` while waiting, and ends a
    /// cleaning cycle after `cleaning_limit` (tests make both short).
    pub fn timing(mut self, poll: Duration, cleaning_limit: Duration) -> LoaderBuilder {
        self.poll = poll;
        self.cleaning_limit = cleaning_limit;
        self
    }

    /// The loader, its settings fixed from here on.
    pub fn build(self) -> Loader {
        let voice = Voice::new(self.settings.device.clone(), self.quiet, self.notices);
        Loader(Arc::new(Inner {
            changer: self.changer,
            settings: self.settings,
            voice,
            poll: self.poll,
            cleaning_limit: self.cleaning_limit,
            ledger: Mutex::new(Ledger::default()),
        }))
    }
}

impl Loader {
    /// A loader with the default settings: not quiet, lines on stderr,
    /// the library looked at every [`LIBRARY_POLL`].
    pub fn new(changer: SharedChanger, settings: LoaderSettings) -> Loader {
        Loader::builder(changer, settings).build()
    }

    /// A loader whose settings are still to be fixed.
    pub fn builder(changer: SharedChanger, settings: LoaderSettings) -> LoaderBuilder {
        LoaderBuilder::new(changer, settings)
    }

    pub fn settings(&self) -> &LoaderSettings {
        &self.0.settings
    }

    /// Which cartridge each volume went on, in the order they were loaded.
    pub fn placements(&self) -> Vec<Placement> {
        self.ledger().placements()
    }

    /// Every move, in order.
    pub fn moves(&self) -> Vec<MoveRecord> {
        self.ledger().moves()
    }

    /// Every cleaning cycle, in order.
    pub fn cleanings(&self) -> Vec<CleaningRecord> {
        self.ledger().cleanings()
    }

    /// Gets the cartridge for `want` into the drive: the one in use back
    /// home (its drive `drive` ejected it already), a cleaning if the drive
    /// asks and `clean` is set, then the next. `drive` is the endpoint's
    /// drive, closed; `note` shows each move on the status line.
    pub fn change(
        &self,
        want: &Wanting<'_>,
        mut drive: Option<&mut dyn Drive>,
        stop: &Receiver<()>,
        note: Note<'_>,
    ) -> Result<(), LoaderError> {
        if let Some(why) = want.refused {
            self.ledger().refuse_current(why);
        }
        let inventory = self.inventory()?;
        let target = match self.choose(&inventory, want) {
            Ok(target) => target,
            Err(e) => {
                // Nothing more for this drive: its cartridge goes home.
                let _ = self.unload(&inventory, reborrow(&mut drive), stop, note);
                return Err(e);
            }
        };
        if let Some(target) = target.as_ref().filter(|t| t.from == self.0.settings.drive) {
            self.ledger().place(want.volume, target);
            return Ok(());
        }
        self.unload(&inventory, reborrow(&mut drive), stop, note)?;
        self.voice().stopped(stop, "after the drive was emptied")?;
        if let Some(drive) = reborrow(&mut drive) {
            self.clean_if_asked(want.volume, drive, stop, note)?;
        }
        let mut target = target;
        for _ in 0..=inventory.slots.len() + inventory.portals.len() {
            let candidate = match target.take() {
                Some(candidate) => candidate,
                None => self.wait_for_operator(want, stop, note)?,
            };
            let (key, from) = (candidate.key.clone(), candidate.from);
            let failed = match self.load(candidate, want.volume, stop, note) {
                Ok(()) => return Ok(()),
                Err(failed) => failed,
            };
            // A load the robot refused, the cartridge still where it was
            // (mhvtl's answer to a wrong generation): another from the
            // pool. A manifest's barcode has no other.
            let now = self.inventory()?;
            let stayed = now.element(from).is_some_and(|e| e.full);
            let drive_empty = now.element(self.0.settings.drive).is_some_and(|e| !e.full);
            if !matches!(self.0.settings.wanted, Wanted::Pool(_)) || !stayed || !drive_empty {
                return Err(failed);
            }
            self.voice().stopped(stop, "after a load failed")?;
            self.voice()
                .tell(&format!("{}; trying another cartridge", failed.why()));
            self.ledger()
                .refuse(key, format!("could not be loaded: {failed}"));
            target = self.choose(&now, want)?;
        }
        Err(self.voice().fail(format!(
            "no cartridge of the pool could be loaded for volume {}",
            want.volume
        )))
    }

    fn ledger(&self) -> MutexGuard<'_, Ledger> {
        lock(&self.0.ledger)
    }

    fn voice(&self) -> &Voice {
        &self.0.voice
    }

    /// The library as it is now.
    fn inventory(&self) -> Result<Inventory, LoaderError> {
        let mut changer = lock(&self.0.changer);
        Inventory::read(&mut **changer).map_err(|e| {
            self.voice()
                .fail(format!("cannot read the changer's inventory: {e}"))
        })
    }
}

/// The drive in `drive` for one call, leaving it for the next.
fn reborrow<'b>(drive: &'b mut Option<&mut dyn Drive>) -> Option<&'b mut dyn Drive> {
    match drive {
        Some(d) => Some(&mut **d),
        None => None,
    }
}

impl LibraryRecords for Loader {
    fn placements(&self) -> Vec<Placement> {
        Loader::placements(self)
    }

    fn moves(&self) -> Vec<MoveRecord> {
        Loader::moves(self)
    }

    fn cleanings(&self) -> Vec<CleaningRecord> {
        Loader::cleanings(self)
    }
}
