//! What a loader has done and knows in this run: which cartridge each
//! volume went on, every move and cleaning, the cartridge it put in the
//! drive, and the cartridges refused or used. The [`Ledger`] sits behind
//! the loader's one lock, which is never held during a move; its fields
//! are its own, so each rule about them (a refused cartridge loses its
//! placement, a placed one is used, one cleaning per run) is kept here.

use std::collections::{HashMap, HashSet};

use crate::tape::changer::{ElementAddress, ElementKind};
use crate::tape::drive::Access;
use crate::tape::loader::pool::{Candidate, Judge, Key};
use crate::tape::loader::records::{CleaningRecord, MoveRecord, Placement};

/// The cartridge this loader put in the drive.
#[derive(Debug, Clone)]
struct Current {
    key: Key,
    barcode: Option<String>,
    home: ElementAddress,
}

#[derive(Debug, Default)]
pub struct Ledger {
    placements: Vec<Placement>,
    moves: Vec<MoveRecord>,
    cleanings: Vec<CleaningRecord>,
    current: Option<Current>,
    refused: HashMap<Key, String>,
    used: HashSet<Key>,
    /// A cleaning cycle has run (one per run).
    cleaned: bool,
}

impl Ledger {
    pub fn placements(&self) -> Vec<Placement> {
        self.placements.clone()
    }

    pub fn moves(&self) -> Vec<MoveRecord> {
        self.moves.clone()
    }

    pub fn cleanings(&self) -> Vec<CleaningRecord> {
        self.cleanings.clone()
    }

    pub fn record_move(&mut self, record: MoveRecord) {
        self.moves.push(record);
    }

    pub fn record_cleaning(&mut self, record: CleaningRecord) {
        self.cleanings.push(record);
    }

    /// True the first time it is asked in a run: a cleaning cycle may run.
    pub fn first_cleaning(&mut self) -> bool {
        !std::mem::replace(&mut self.cleaned, true)
    }

    /// `target` is in the drive: it is this loader's cartridge now.
    pub fn hold(&mut self, target: &Candidate) {
        self.current = Some(Current {
            key: target.key.clone(),
            barcode: target.barcode.clone(),
            home: target.home,
        });
    }

    /// The drive is empty, or holds what this loader did not put in.
    pub fn release(&mut self) {
        self.current = None;
    }

    /// Whether this loader put the cartridge with barcode `barcode` in the
    /// drive.
    pub fn put_in(&self, barcode: Option<&str>) -> bool {
        self.current
            .as_ref()
            .is_some_and(|c| c.barcode.as_deref() == barcode)
    }

    /// The home of the cartridge with barcode `barcode`, when this loader
    /// put it in the drive.
    pub fn home_of_ours(&self, barcode: Option<&str>) -> Option<ElementAddress> {
        self.current
            .as_ref()
            .filter(|c| c.barcode.as_deref() == barcode)
            .map(|c| c.home)
    }

    /// Volume `volume` went on `target`, which is in the drive.
    pub fn place(&mut self, volume: u32, target: &Candidate) {
        self.hold(target);
        self.used.insert(target.key.clone());
        self.placements.push(Placement {
            volume,
            barcode: target.barcode.clone(),
            slot: (target.home.kind == ElementKind::Slot).then_some(target.home.index + 1),
        });
    }

    /// The cartridge `key` is refused for this run, `why` in words.
    pub fn refuse(&mut self, key: Key, why: String) {
        self.refused.insert(key, why);
    }

    /// The cartridge in the drive was refused for its volume: it is
    /// marked, no longer counts as used, and its placement is taken back.
    pub fn refuse_current(&mut self, why: &str) {
        let Some(current) = self.current.clone() else {
            return;
        };
        self.refused.insert(current.key.clone(), why.to_string());
        self.used.remove(&current.key);
        let at = self
            .placements
            .iter()
            .rposition(|p| p.barcode == current.barcode);
        if let Some(at) = at {
            self.placements.remove(at);
        }
    }

    /// Why the cartridge `key` was refused in this run, if it was.
    pub fn refusal(&self, key: &Key) -> Option<&str> {
        self.refused.get(key).map(String::as_str)
    }

    /// Neither used for a volume nor refused in this run.
    pub fn is_fresh(&self, key: &Key) -> bool {
        !self.used.contains(key) && !self.refused.contains_key(key)
    }

    /// How the pool judges a cartridge for `access`, on a drive of LTO
    /// generation `generation`, with what this run refused and used.
    pub fn judge(&self, access: Access, generation: Option<u8>) -> Judge<'_> {
        Judge {
            access,
            generation,
            refused: &self.refused,
            used: &self.used,
        }
    }
}
