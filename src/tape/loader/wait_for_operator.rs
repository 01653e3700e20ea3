//! When no usable cartridge is left for a volume: the operator is told
//! once, in words that name the import/export slots and the time limit,
//! and the library is looked at every `poll` until a usable cartridge of
//! the pool appears in a pool slot or an import/export slot (or the
//! barcode wanted appears anywhere but another drive), up to
//! `--change-timeout`. A stop ends the wait at once.

use std::time::Duration;

use crossbeam_channel::Receiver;

use crate::base::deadline::{Deadline, Pause};
use crate::base::human_time::human;

use crate::tape::changer::Inventory;
use crate::tape::loader::pool::Candidate;
use crate::tape::loader::{Loader, LoaderError, Note, Wanted, Wanting, DEFAULT_WAIT};

impl Loader {
    /// Waits for the operator to bring a cartridge for `want`.
    pub(super) fn wait_for_operator(
        &self,
        want: &Wanting<'_>,
        stop: &Receiver<()>,
        note: Note<'_>,
    ) -> Result<Candidate, LoaderError> {
        let limit = self.0.fixed.settings.timeout.unwrap_or(DEFAULT_WAIT);
        let inventory = self.inventory()?;
        let portals = portal_names(&inventory);
        self.call_out(&self.call(want, &portals, limit));
        let n = want.volume;
        let deadline = Deadline::new(limit, self.poll());
        let waited = loop {
            note(Some(format!(
                "waiting {} s for a cartridge for volume {n} ({})",
                deadline.waited().as_secs(),
                portals.as_deref().unwrap_or("a pool slot")
            )));
            match deadline.pause(stop) {
                Pause::Look => {}
                Pause::TimedOut(_) => {
                    break Err(self.fail(format!(
                        "no usable cartridge for volume {n} came within {} (--change-timeout)",
                        human(limit)
                    )))
                }
                Pause::Stopped => {
                    break Err(
                        self.stop_error(format!("while waiting for a cartridge for volume {n}"))
                    )
                }
            }
            let inventory = self.inventory()?;
            let found = match &self.0.fixed.settings.wanted {
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
        match (&self.0.fixed.settings.wanted, portals) {
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
