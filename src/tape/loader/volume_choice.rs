//! Which cartridge a volume goes on, and where it lives: the pool's next
//! candidate, or the barcode wanted for the volume wherever it is now (a
//! slot, an import/export slot, this drive; never another drive, which
//! another endpoint may be using). What is chosen is recorded as the
//! volume's [`Placement`](super::Placement) once it is in.
//!
//! When nothing usable is left for a volume, the operator is told once,
//! in words that name the import/export slots and the time limit, and the
//! library is looked at every poll until a usable cartridge of the pool
//! appears in a pool slot or an import/export slot (or the barcode wanted
//! appears anywhere but another drive), up to `--change-timeout`. A stop
//! ends the wait at once.

use std::time::Duration;

use crossbeam_channel::Receiver;

use crate::base::deadline::{Deadline, Pause};
use crate::base::human_time::human;
use crate::tape::changer::Inventory;
use crate::tape::changer::{Element, ElementAddress, ElementKind};
use crate::tape::loader::pool::{unusable, Candidate, Key, Pool};
use crate::tape::loader::{Loader, LoaderError, Note, Wanted, Wanting, DEFAULT_WAIT};
use crate::tape::media;

impl Loader {
    /// The cartridge for `want` among what `inventory` shows; None when
    /// there is none (the operator must bring one).
    pub(super) fn choose(
        &self,
        inventory: &Inventory,
        want: &Wanting<'_>,
    ) -> Result<Option<Candidate>, LoaderError> {
        match &self.0.settings.wanted {
            Wanted::Pool(pool) => Ok(self.pool_candidate(pool, inventory, want)),
            Wanted::Barcodes(list) => self.by_barcode(list, inventory, want),
        }
    }

    /// The drive's LTO generation, when its identifier tells it.
    fn generation(&self, inventory: &Inventory) -> Option<u8> {
        let drive = inventory.element(self.0.settings.drive)?;
        media::drive_generation(drive.identifier.as_deref()?)
    }

    fn pool_candidate(
        &self,
        pool: &Pool,
        inventory: &Inventory,
        want: &Wanting<'_>,
    ) -> Option<Candidate> {
        let generation = self.generation(inventory);
        let mut skips = Vec::new();
        let chosen = {
            let ledger = self.ledger();
            let judge = ledger.judge(want.access, generation);
            let mut skip = |e: &Element, home: ElementAddress, why: String| {
                skips.push(format!("skipping {home} ({}): {why}", label(e)));
            };
            pool.next(inventory, self.0.settings.drive, &judge, &mut skip)
        };
        for line in skips {
            self.voice().tell_once(&line);
        }
        chosen
    }

    /// A usable cartridge the operator put into an import/export slot
    /// that belongs to the pool, once the robot can reach it.
    pub(super) fn portal_candidate(
        &self,
        pool: &Pool,
        inventory: &Inventory,
        want: &Wanting<'_>,
    ) -> Option<Candidate> {
        let generation = self.generation(inventory);
        let ledger = self.ledger();
        let judge = ledger.judge(want.access, generation);
        inventory
            .portals
            .iter()
            // Until the operator closes the door the robot cannot reach
            // it (mhvtl: Access clear, and a move fails with 3A/02).
            .filter(|e| e.full && e.import_export && e.access)
            .filter(|e| pool.admits(e.barcode.as_deref()))
            .filter(|e| unusable(e, &judge).is_none())
            .map(|e| Candidate {
                from: e.address,
                home: e.address,
                barcode: e.barcode.clone(),
                key: Key::of(e, e.address),
            })
            .find(|c| ledger.is_fresh(&c.key))
    }

    fn by_barcode(
        &self,
        list: &[String],
        inventory: &Inventory,
        want: &Wanting<'_>,
    ) -> Result<Option<Candidate>, LoaderError> {
        let n = want.volume;
        let Some(barcode) = list.get(n as usize - 1) else {
            return Err(self
                .voice()
                .fail(format!("the manifest names no cartridge for volume {n}")));
        };
        let key = Key::Barcode(barcode.clone());
        if let Some(why) = self.ledger().refusal(&key) {
            return Err(self.voice().fail(format!(
                "{barcode}, the cartridge of volume {n}, {why}, and no other cartridge holds volume {n}"
            )));
        }
        let Some(element) = inventory.find_barcode(barcode) else {
            return Ok(None);
        };
        let at = element.address;
        if at.kind == ElementKind::Drive && at != self.0.settings.drive {
            return Err(self.voice().fail(format!(
                "{barcode}, the cartridge of volume {n}, is in {at}, another drive; it is not taken from there"
            )));
        }
        let home = match at.kind {
            ElementKind::Drive => self.home_of(element, inventory).unwrap_or(at),
            _ => at,
        };
        Ok(Some(Candidate {
            from: at,
            home,
            barcode: Some(barcode.clone()),
            key,
        }))
    }

    /// Where the cartridge in the drive (`element`) goes back to: the
    /// slot this loader loaded it from, else the slot the library says it
    /// came from, else the first empty slot; always an empty slot.
    pub(super) fn home_of(
        &self,
        element: &Element,
        inventory: &Inventory,
    ) -> Option<ElementAddress> {
        let empty = |a: ElementAddress| {
            a.kind == ElementKind::Slot && inventory.element(a).is_some_and(|e| !e.full)
        };
        let loaded_home = self.ledger().home_of_ours(element.barcode.as_deref());
        loaded_home
            .filter(|&a| empty(a))
            .or(element.source.filter(|&a| empty(a)))
            .or_else(|| inventory.first_empty_slot())
    }

    /// A slot to keep a cartridge taken from an import/export slot in: the
    /// first empty slot of the pool, else the first empty slot.
    pub(super) fn home_for_portal(&self, inventory: &Inventory) -> Option<ElementAddress> {
        let pool_slot = match &self.0.settings.wanted {
            Wanted::Pool(pool @ Pool::Slots(_)) => pool
                .slots(inventory)
                .into_iter()
                .find(|&a| inventory.element(a).is_some_and(|e| !e.full)),
            _ => None,
        };
        pool_slot.or_else(|| inventory.first_empty_slot())
    }

    /// Waits for the operator to bring a cartridge for `want`.
    pub(super) fn wait_for_operator(
        &self,
        want: &Wanting<'_>,
        stop: &Receiver<()>,
        note: Note<'_>,
    ) -> Result<Candidate, LoaderError> {
        let limit = self.0.settings.timeout.unwrap_or(DEFAULT_WAIT);
        let inventory = self.inventory()?;
        let portals = portal_names(&inventory);
        self.voice().call_out(&self.call(want, &portals, limit));
        let n = want.volume;
        let deadline = Deadline::new(limit, self.0.poll);
        let waited = loop {
            note(Some(format!(
                "waiting {} s for a cartridge for volume {n} ({})",
                deadline.waited().as_secs(),
                portals.as_deref().unwrap_or("a pool slot")
            )));
            match deadline.pause(stop) {
                Pause::Look => {}
                Pause::TimedOut(_) => {
                    break Err(self.voice().fail(format!(
                        "no usable cartridge for volume {n} came within {} (--change-timeout)",
                        human(limit)
                    )))
                }
                Pause::Stopped => {
                    break Err(self
                        .voice()
                        .stop_error(format!("while waiting for a cartridge for volume {n}")))
                }
            }
            let inventory = self.inventory()?;
            let found = match &self.0.settings.wanted {
                Wanted::Pool(pool) => self
                    .choose(&inventory, want)?
                    .or_else(|| self.portal_candidate(pool, &inventory, want)),
                Wanted::Barcodes(_) => self.choose(&inventory, want)?,
            };
            if let Some(found) = found {
                break Ok(found);
            }
        };
        note(None);
        waited
    }

    /// What the operator is asked to do.
    fn call(&self, want: &Wanting<'_>, portals: &Option<String>, limit: Duration) -> String {
        let within = format!("within {} (--change-timeout)", human(limit));
        match (&self.0.settings.wanted, portals) {
            (Wanted::Pool(pool), Some(portals)) => format!(
                "no usable cartridge is left in {}; put one into {portals}, or into a pool slot, {within}",
                pool.describe()
            ),
            (Wanted::Pool(pool), None) => format!(
                "no usable cartridge is left in {}; put one into a pool slot {within}",
                pool.describe()
            ),
            (Wanted::Barcodes(list), _) => {
                let barcode = list.get(want.volume as usize - 1).map_or("?", String::as_str);
                let place = portals.as_deref().unwrap_or("a slot");
                format!(
                    "{barcode}, the cartridge of volume {}, is not in the library; put it into {place} {within}",
                    want.volume
                )
            }
        }
    }
}

/// A cartridge as messages name it: its barcode, or "no barcode".
pub(super) fn label(element: &Element) -> &str {
    element.barcode.as_deref().unwrap_or("no barcode")
}

/// "import/export slot 1", "import/export slot 1 or import/export slot
/// 2"; None when the library has none.
fn portal_names(inventory: &Inventory) -> Option<String> {
    let names: Vec<String> = inventory
        .portals
        .iter()
        .map(|p| p.address.to_string())
        .collect();
    (!names.is_empty()).then(|| names.join(" or "))
}
