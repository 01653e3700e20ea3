//! Which cartridge a volume goes on, and where it lives: the pool's next
//! candidate, or the barcode wanted for the volume wherever it is now (a
//! slot, an import/export slot, this drive; never another drive, which
//! another endpoint may be using). What is chosen is recorded as the
//! volume's [`Placement`](super::Placement) once it is in.

use crate::tape::changer::Inventory;
use crate::tape::changer::{Element, ElementAddress, ElementKind};
use crate::tape::loader::pool::{unusable, Candidate, Judge, Key, Pool};
use crate::tape::loader::{Current, Loader, LoaderError, Placement, State, Wanted, Wanting};
use crate::tape::media;

impl Loader {
    /// The cartridge for `want` among what `inventory` shows; None when
    /// there is none (the operator must bring one).
    pub(super) fn choose(
        &self,
        inventory: &Inventory,
        want: &Wanting<'_>,
    ) -> Result<Option<Candidate>, LoaderError> {
        match &self.0.fixed.settings.wanted {
            Wanted::Pool(pool) => Ok(self.pool_candidate(pool, inventory, want)),
            Wanted::Barcodes(list) => self.by_barcode(list, inventory, want),
        }
    }

    /// The drive's LTO generation, when its identifier tells it.
    fn generation(&self, inventory: &Inventory) -> Option<u8> {
        let drive = inventory.element(self.0.fixed.settings.drive)?;
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
            let state = self.state();
            let judge = judge(&state, want, generation);
            let mut skip = |e: &Element, home: ElementAddress, why: String| {
                skips.push(format!("skipping {home} ({}): {why}", label(e)));
            };
            pool.next(inventory, self.0.fixed.settings.drive, &judge, &mut skip)
        };
        for line in skips {
            self.tell_once(&line);
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
        let state = self.state();
        let judge = judge(&state, want, generation);
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
            .find(|c| !state.used.contains(&c.key) && !state.refused.contains_key(&c.key))
    }

    fn by_barcode(
        &self,
        list: &[String],
        inventory: &Inventory,
        want: &Wanting<'_>,
    ) -> Result<Option<Candidate>, LoaderError> {
        let n = want.volume;
        let Some(barcode) = list.get(n as usize - 1) else {
            return Err(self.fail(format!("the manifest names no cartridge for volume {n}")));
        };
        let key = Key::Barcode(barcode.clone());
        if let Some(why) = self.state().refused.get(&key) {
            return Err(self.fail(format!(
                "{barcode}, the cartridge of volume {n}, {why}, and no other cartridge holds volume {n}"
            )));
        }
        let Some(element) = inventory.find_barcode(barcode) else {
            return Ok(None);
        };
        let at = element.address;
        if at.kind == ElementKind::Drive && at != self.0.fixed.settings.drive {
            return Err(self.fail(format!(
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
        let ours = self.state().current.clone();
        let loaded_home = ours
            .filter(|c| c.barcode == element.barcode)
            .map(|c| c.home);
        loaded_home
            .filter(|&a| empty(a))
            .or(element.source.filter(|&a| empty(a)))
            .or_else(|| inventory.first_empty_slot())
    }

    /// A slot to keep a cartridge taken from an import/export slot in: the
    /// first empty slot of the pool, else the first empty slot.
    pub(super) fn home_for_portal(&self, inventory: &Inventory) -> Option<ElementAddress> {
        let pool_slot = match &self.0.fixed.settings.wanted {
            Wanted::Pool(pool @ Pool::Slots(_)) => pool
                .slots(inventory)
                .into_iter()
                .find(|&a| inventory.element(a).is_some_and(|e| !e.full)),
            _ => None,
        };
        pool_slot.or_else(|| inventory.first_empty_slot())
    }

    /// `target` is in the drive for volume `volume`: it is this loader's
    /// cartridge now.
    pub(super) fn hold(&self, target: &Candidate) {
        self.state().current = Some(Current {
            key: target.key.clone(),
            barcode: target.barcode.clone(),
            home: target.home,
        });
    }

    /// Records that volume `volume` went on `target`.
    pub(super) fn place(&self, volume: u32, target: &Candidate) {
        self.hold(target);
        let mut state = self.state();
        state.used.insert(target.key.clone());
        state.placements.push(Placement {
            volume,
            barcode: target.barcode.clone(),
            slot: (target.home.kind == ElementKind::Slot).then_some(target.home.index + 1),
        });
    }
}

/// A cartridge as messages name it: its barcode, or "no barcode".
pub(super) fn label(element: &Element) -> &str {
    element.barcode.as_deref().unwrap_or("no barcode")
}

/// How a candidate is judged for `want`, with what this run refused and
/// used so far.
fn judge<'s>(state: &'s State, want: &Wanting<'_>, generation: Option<u8>) -> Judge<'s> {
    Judge {
        access: want.access,
        generation,
        refused: &state.refused,
        used: &state.used,
    }
}
