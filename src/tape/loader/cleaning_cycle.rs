//! Cleaning between volumes (`--clean`): when the drive asks (TapeAlert
//! flag 20 or 21, or st's GMT_CLN), the library's cleaning cartridge is
//! moved into the empty drive, watched until the drive has finished, and
//! moved back to its slot, and a [`CleaningRecord`] says how it went.
//!
//! "Finished" is the drive ejecting the cartridge (its element becomes
//! accessible again after it was not, or the drive, having held it,
//! reports itself empty), the drive no longer answering "cleaning
//! cartridge installed" (30/03) after it did, or the cartridge leaving the
//! drive;
//! a drive that never says so (mhvtl's, in the tape lab) is given the
//! cleaning limit and then the cartridge is taken back anyway. MTOFFL is
//! never sent to a drive holding a cleaning cartridge (st cannot unload
//! it): the library moves it. One cycle per run: a drive that still asks
//! afterwards is told about once. Without `--clean` nothing happens here;
//! the cleaning watch (`tape/drive/cleaning.rs`) warns.

use std::time::Instant;

use crossbeam_channel::Receiver;

use crate::base::deadline::{Deadline, Pause};
use crate::base::human_time::human;
use crate::tape::drive::Drive;
use crate::tape::loader::volume_choice::label;
use crate::tape::loader::{CleaningRecord, Loader, LoaderError, Note};
use crate::tape::scsi::pages::tape_alert::{CLEAN_NOW, CLEAN_PERIODIC};
use crate::tape::scsi::sense::Readiness;

/// How a cleaning cycle's wait ended.
enum Ended {
    Done(String),
    Stopped,
}

impl Loader {
    /// Cleans the (empty) drive before volume `volume` if it asks and
    /// `clean` is set. Err only when the run must not go on: stopped, or
    /// the cleaning cartridge could not be taken out again.
    pub(super) fn clean_if_asked(
        &self,
        volume: u32,
        drive: &mut dyn Drive,
        stop: &Receiver<()>,
        note: Note<'_>,
    ) -> Result<(), LoaderError> {
        if !self.0.settings.clean {
            return Ok(());
        }
        let Some(why) = cleaning_request(drive) else {
            return Ok(());
        };
        if !self.ledger().first_cleaning() {
            self.voice().tell_once(&format!(
                "the drive asks to be cleaned again ({why}); it was cleaned once in this run, so not now"
            ));
            return Ok(());
        }
        let cleaned = self.cleaning_cycle(volume, &why, drive, stop, note);
        drive.cleaned();
        cleaned
    }

    fn cleaning_cycle(
        &self,
        volume: u32,
        why: &str,
        drive: &mut dyn Drive,
        stop: &Receiver<()>,
        note: Note<'_>,
    ) -> Result<(), LoaderError> {
        let started = Instant::now();
        let at = self.0.settings.drive;
        let inventory = self.inventory()?;
        let record = |barcode: Option<String>, error: Option<String>| CleaningRecord {
            barcode,
            before_volume: volume,
            seconds: started.elapsed().as_secs_f64(),
            error,
        };
        let Some(cleaner) = inventory.slots.iter().find(|e| e.is_cleaning()).cloned() else {
            let error = "the library holds no cleaning cartridge in a slot".to_string();
            self.voice().tell(&format!(
                "the drive asks to be cleaned ({why}), but {error}"
            ));
            self.ledger().record_cleaning(record(None, Some(error)));
            return Ok(());
        };
        let barcode = cleaner.barcode.clone();
        let words = format!(
            "the drive asks to be cleaned ({why}); loading {} from {} into {at}",
            label(&cleaner),
            cleaner.address
        );
        if let Err(e) = self.move_cartridge(cleaner.address, at, barcode.as_deref(), &words, note) {
            self.voice().tell(&e.why());
            self.ledger()
                .record_cleaning(record(barcode, Some(e.to_string())));
            return Ok(());
        }
        note(Some(format!(
            "cleaning {} with {}",
            self.0.settings.device,
            label(&cleaner)
        )));
        let ended = self.watch_cleaning(drive, stop);
        note(None);
        let inventory = self.inventory()?;
        if inventory.element(at).is_some_and(|e| e.full) {
            let words = format!(
                "returning {} from {at} to {}",
                label(&cleaner),
                cleaner.address
            );
            let back = self.move_cartridge(at, cleaner.address, barcode.as_deref(), &words, note);
            if let Err(e) = back {
                self.ledger()
                    .record_cleaning(record(barcode, Some(e.to_string())));
                return Err(e);
            }
        }
        let how = match &ended {
            Ok(Ended::Done(how)) => how.clone(),
            Ok(Ended::Stopped) => "stopped".to_string(),
            Err(e) => e.why(),
        };
        self.voice().tell(&format!(
            "cleaned with {} in {:.1} s ({how})",
            label(&cleaner),
            started.elapsed().as_secs_f64()
        ));
        let error = (!matches!(ended, Ok(Ended::Done(_)))).then(|| how.clone());
        self.ledger().record_cleaning(record(barcode, error));
        match ended {
            Ok(Ended::Stopped) => Err(self
                .voice()
                .stop_error("while cleaning the drive".to_string())),
            _ => Ok(()),
        }
    }

    /// Watches the drive element, and the drive, until the drive is done
    /// with the cleaning cartridge, the limit, or a stop.
    fn watch_cleaning(
        &self,
        drive: &mut dyn Drive,
        stop: &Receiver<()>,
    ) -> Result<Ended, LoaderError> {
        let limit = self.0.cleaning_limit;
        let deadline = Deadline::new(limit, self.0.poll);
        let (mut busy, mut holding, mut cleaning) = (false, false, false);
        loop {
            match deadline.pause(stop) {
                Pause::Look => {}
                Pause::TimedOut(_) => {
                    return Ok(Ended::Done(format!(
                        "ended by the {} limit: the drive never said it was done",
                        human(limit)
                    )))
                }
                Pause::Stopped => return Ok(Ended::Stopped),
            }
            let inventory = self.inventory()?;
            let Some(element) = inventory.element(self.0.settings.drive) else {
                return Err(self
                    .voice()
                    .fail(format!("the changer has no {}", self.0.settings.drive)));
            };
            if !element.full {
                return Ok(Ended::Done("the cartridge left the drive".into()));
            }
            if !element.access {
                busy = true;
            } else if busy {
                return Ok(Ended::Done("the drive ejected it when done".into()));
            }
            // A library that does not show the drive's state: the drive
            // itself says it no longer holds a cartridge.
            // A drive that said "cleaning cartridge installed" (30/03) and
            // no longer does has finished with it (mhvtl: after 30 s).
            let at_work = Readiness::CleaningCartridge.unusable();
            match drive.status_unopened() {
                Ok(s) if !s.door_open && s.unusable == at_work => {
                    (holding, cleaning) = (true, true)
                }
                Ok(s) if !s.door_open && cleaning => {
                    return Ok(Ended::Done(
                        "the drive no longer reports a cleaning cartridge at work".into(),
                    ));
                }
                Ok(s) if !s.door_open => holding = true,
                Ok(_) if holding => {
                    return Ok(Ended::Done("the drive reports it ejected it".into()))
                }
                _ => {}
            }
        }
    }
}

/// Why the drive asks to be cleaned, if it does: a TapeAlert flag, or
/// st's GMT_CLN. A drive that cannot say is not asking.
fn cleaning_request(drive: &mut dyn Drive) -> Option<String> {
    let alerts = drive.tape_alerts().unwrap_or_default();
    if alerts.contains(CLEAN_NOW) {
        return Some("TapeAlert 20: clean now".into());
    }
    if alerts.contains(CLEAN_PERIODIC) {
        return Some("TapeAlert 21: clean periodic".into());
    }
    drive
        .status_unopened()
        .is_ok_and(|s| s.needs_cleaning)
        .then(|| "the drive's cleaning request, GMT_CLN".into())
}
