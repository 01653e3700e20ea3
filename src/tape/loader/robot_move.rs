//! The loader's moves: each one said on stderr (unless quiet) and on the
//! status line while it runs, done under the changer's lock, and recorded
//! as a [`MoveRecord`] whether it worked or not. A move cannot be
//! cancelled: a stop is looked at only once it has finished and been
//! recorded, so nothing is left half-recorded.
//!
//! Emptying the drive sends MTOFFL only to a cartridge this loader did
//! not put in (the volume in use was ejected already by the change), and
//! never to a cleaning cartridge, which st cannot unload. A library may
//! still see the drive letting go of the cartridge just after MTOFFL, so
//! a move out of the drive that fails is tried once more a little later.

use std::time::{Instant, SystemTime};

use crossbeam_channel::{after, select, Receiver};

use crate::base::sync::lock;
use crate::tape::changer::Inventory;
use crate::tape::changer::{ElementAddress, ElementKind};
use crate::tape::drive::Drive;
use crate::tape::loader::pool::Candidate;
use crate::tape::loader::volume_choice::label;
use crate::tape::loader::{Loader, LoaderError, MoveRecord, Note};

/// How many polls to wait before a failed move out of the drive is tried
/// again.
const UNLOAD_RETRY_POLLS: u32 = 5;

impl Loader {
    /// Moves the cartridge `barcode` from `from` to `to`, saying `words`.
    pub(super) fn move_cartridge(
        &self,
        from: ElementAddress,
        to: ElementAddress,
        barcode: Option<&str>,
        words: &str,
        note: Note<'_>,
    ) -> Result<(), LoaderError> {
        let name = barcode.unwrap_or("the cartridge");
        self.voice().tell(words);
        note(Some(format!("moving {name} {from} → {to}")));
        let started = SystemTime::now();
        let clock = Instant::now();
        let moved = lock(&self.0.changer).move_medium(from, to);
        note(None);
        self.ledger().record_move(MoveRecord {
            from,
            to,
            barcode: barcode.map(str::to_string),
            started,
            seconds: clock.elapsed().as_secs_f64(),
            error: moved.as_ref().err().map(|e| e.to_string()),
        });
        moved.map_err(|e| {
            self.voice().fail(format!(
                "the changer could not move {name} from {from} to {to}: {e}"
            ))
        })
    }

    /// Empties the drive: its cartridge goes back to its home slot.
    pub(super) fn unload(
        &self,
        inventory: &Inventory,
        drive: Option<&mut dyn Drive>,
        stop: &Receiver<()>,
        note: Note<'_>,
    ) -> Result<(), LoaderError> {
        let at = self.0.settings.drive;
        let Some(element) = inventory.element(at) else {
            return Err(self.voice().fail(format!("the changer has no {at}")));
        };
        if !element.full {
            self.ledger().release();
            return Ok(());
        }
        let foreign = !self.ledger().put_in(element.barcode.as_deref());
        if let (true, false, Some(drive)) = (foreign, element.is_cleaning(), drive) {
            // Not ejected by the change: st must let go of it first.
            if let Err(e) = drive.eject_unopened() {
                self.voice().tell(&format!(
                    "cannot eject the cartridge in it ({e}); moving it anyway"
                ));
            }
        }
        let Some(home) = self.home_of(element, inventory) else {
            return Err(self.voice().fail(format!(
                "no empty slot to put {} from {at} in",
                label(element)
            )));
        };
        let words = format!("returning {} from {at} to {home}", label(element));
        let barcode = element.barcode.as_deref();
        if let Err(first) = self.move_cartridge(at, home, barcode, &words, note) {
            select! {
                recv(stop) -> _ => return Err(first),
                recv(after(self.0.poll * UNLOAD_RETRY_POLLS)) -> _ => {},
            }
            let again = format!("{words}, once more");
            self.move_cartridge(at, home, barcode, &again, note)
                .map_err(|_| first)?;
        }
        self.ledger().release();
        Ok(())
    }

    /// Moves `target` into the drive for volume `volume` and records it;
    /// a stop after the move leaves it recorded as in the drive, with no
    /// volume placed on it.
    pub(super) fn load(
        &self,
        mut target: Candidate,
        volume: u32,
        stop: &Receiver<()>,
        note: Note<'_>,
    ) -> Result<(), LoaderError> {
        if target.home.kind != ElementKind::Slot {
            let inventory = self.inventory()?;
            if let Some(home) = self.home_for_portal(&inventory) {
                target.home = home;
            }
        }
        let at = self.0.settings.drive;
        let name = target.barcode.as_deref().unwrap_or("the cartridge");
        let words = format!(
            "loading {name} from {} into {at} for volume {volume}",
            target.from
        );
        self.move_cartridge(target.from, at, target.barcode.as_deref(), &words, note)?;
        self.ledger().hold(&target);
        self.voice()
            .stopped(stop, &format!("after {name} was loaded into {at}"))?;
        self.ledger().place(volume, &target);
        Ok(())
    }
}
