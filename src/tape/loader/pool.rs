//! A pool: the cartridges of a library one tape endpoint may use, in the
//! order it uses them, named by storage slots (`--slots 1-4,7`, 1-based as
//! mtx numbers them) or by barcode globs (`--barcodes 'E010*,E011??L6'`,
//! `*` any run of characters, `?` one). A backup never writes a
//! cartridge nobody named.
//!
//! The next candidate is the first cartridge of the pool, in pool order,
//! that is there and usable: empty slots are passed over, and so, each
//! with a reason in words, are cleaning and diagnostic cartridges, WORM
//! cartridges when writing, cartridges of a generation the drive cannot
//! use (`tape/media.rs`, only when the drive's generation is known), and
//! cartridges refused earlier in this run. Cartridges already used for a
//! volume of this run are passed over without a word.

use std::collections::{HashMap, HashSet};

use crate::tape::changer::Inventory;
use crate::tape::changer::{Element, ElementAddress, ElementKind, MediumType, MAX_ELEMENTS};
use crate::tape::drive::Access;
use crate::tape::media;

/// The cartridges one endpoint may use, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pool {
    /// Storage slots, 0-based (`--slots` counts from 1).
    Slots(Vec<usize>),
    /// Barcode globs.
    Barcodes(Vec<String>),
}

/// A cartridge as the loader remembers it across moves: by barcode, or,
/// without one, by its home slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    Barcode(String),
    Home(ElementAddress),
}

impl Key {
    /// The key of the cartridge in `element`, whose home is `home`.
    pub fn of(element: &Element, home: ElementAddress) -> Key {
        match &element.barcode {
            Some(b) => Key::Barcode(b.clone()),
            None => Key::Home(home),
        }
    }
}

/// What the pool judges cartridges against.
pub struct Judge<'a> {
    pub access: Access,
    /// The drive's LTO generation, when known.
    pub generation: Option<u8>,
    /// Cartridges refused in this run, and why.
    pub refused: &'a HashMap<Key, String>,
    /// Cartridges used for a volume of this run.
    pub used: &'a HashSet<Key>,
}

/// The cartridge the pool takes next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Where it is now: a slot, or the drive itself.
    pub from: ElementAddress,
    /// Its home slot.
    pub home: ElementAddress,
    pub barcode: Option<String>,
    pub key: Key,
}

impl Pool {
    /// The slots of `text`: numbers and ranges from 1, comma separated.
    pub fn parse_slots(text: &str) -> Result<Pool, String> {
        let bad = |item: &str, why: &str| format!("--slots \"{text}\": \"{item}\" {why}");
        let number = |item: &str, part: &str| -> Result<usize, String> {
            match part.trim().parse::<usize>() {
                Ok(0) => Err(bad(
                    item,
                    "names slot 0; slots are numbered from 1, as mtx numbers them",
                )),
                Ok(n) if n <= MAX_ELEMENTS => Ok(n - 1),
                _ => Err(bad(item, "is not a slot number or a range such as 1-4")),
            }
        };
        let mut slots = Vec::new();
        for item in text.split(',') {
            let item = item.trim();
            let (first, last) = match item.split_once('-') {
                Some((a, b)) => (number(item, a)?, number(item, b)?),
                None => (number(item, item)?, number(item, item)?),
            };
            if first > last {
                return Err(bad(item, "is a range that runs backwards"));
            }
            for slot in first..=last {
                if !slots.contains(&slot) {
                    slots.push(slot);
                }
            }
        }
        Ok(Pool::Slots(slots))
    }

    /// The globs of `text`, comma separated.
    pub fn parse_barcodes(text: &str) -> Result<Pool, String> {
        let mut globs = Vec::new();
        for item in text.split(',') {
            let item = item.trim();
            if item.is_empty() || !item.chars().all(|c| c.is_ascii_graphic()) {
                return Err(format!(
                    "--barcodes \"{text}\": \"{item}\" is not a barcode pattern (letters, digits, * and ?)"
                ));
            }
            globs.push(item.to_string());
        }
        Ok(Pool::Barcodes(globs))
    }

    /// The pool as the user would write it: "slots 1-3,7", "barcodes E01*".
    pub fn describe(&self) -> String {
        match self {
            Pool::Barcodes(globs) => format!("barcodes {}", globs.join(",")),
            Pool::Slots(slots) => {
                let mut ranges: Vec<(usize, usize)> = Vec::new();
                for &s in slots {
                    match ranges.last_mut() {
                        Some((_, last)) if *last + 1 == s => *last = s,
                        _ => ranges.push((s, s)),
                    }
                }
                let text: Vec<String> = ranges
                    .iter()
                    .map(|&(a, b)| match a == b {
                        true => format!("{}", a + 1),
                        false => format!("{}-{}", a + 1, b + 1),
                    })
                    .collect();
                let noun = if slots.len() == 1 { "slot" } else { "slots" };
                format!("{noun} {}", text.join(","))
            }
        }
    }

    /// A cartridge with `barcode` belongs to a barcode pool; every
    /// cartridge an operator hands in belongs to a slot pool.
    pub fn admits(&self, barcode: Option<&str>) -> bool {
        match self {
            Pool::Slots(_) => true,
            Pool::Barcodes(globs) => barcode.is_some_and(|b| globs.iter().any(|g| glob(g, b))),
        }
    }

    /// The pool's slots (a slot pool's, or the slots a barcode pool's
    /// cartridges are in now), in pool order.
    pub fn slots(&self, inventory: &Inventory) -> Vec<ElementAddress> {
        self.members(inventory, None)
            .into_iter()
            .map(|(_, home)| home)
            .collect()
    }

    /// The pool's cartridges and homes in pool order; the cartridge in
    /// `drive`, if any, counts as being in the slot it came from.
    fn members<'i>(
        &self,
        inventory: &'i Inventory,
        drive: Option<ElementAddress>,
    ) -> Vec<(&'i Element, ElementAddress)> {
        let in_drive = drive
            .and_then(|d| inventory.element(d))
            .filter(|e| e.full && e.source.is_some_and(|s| s.kind == ElementKind::Slot));
        let at = |slot: &'i Element| -> &'i Element {
            match in_drive {
                Some(d) if !slot.full && d.source == Some(slot.address) => d,
                _ => slot,
            }
        };
        match self {
            Pool::Slots(indexes) => indexes
                .iter()
                .filter_map(|&i| inventory.slots.get(i))
                .map(|s| (at(s), s.address))
                .collect(),
            Pool::Barcodes(globs) => {
                let mut out = Vec::new();
                for g in globs {
                    for slot in &inventory.slots {
                        let element = at(slot);
                        let matches = element.barcode.as_deref().is_some_and(|b| glob(g, b));
                        if element.full && matches && !out.iter().any(|(_, h)| *h == slot.address) {
                            out.push((element, slot.address));
                        }
                    }
                }
                out
            }
        }
    }

    /// The next usable cartridge, in pool order; `skip` hears of each
    /// cartridge passed over, and why.
    pub fn next(
        &self,
        inventory: &Inventory,
        drive: ElementAddress,
        judge: &Judge<'_>,
        skip: &mut dyn FnMut(&Element, ElementAddress, String),
    ) -> Option<Candidate> {
        for (element, home) in self.members(inventory, Some(drive)) {
            if !element.full {
                continue;
            }
            let key = Key::of(element, home);
            if judge.used.contains(&key) {
                continue;
            }
            if let Some(why) = judge.refused.get(&key) {
                skip(
                    element,
                    home,
                    format!("refused earlier in this run (it {why})"),
                );
                continue;
            }
            if let Some(why) = unusable(element, judge) {
                skip(element, home, why);
                continue;
            }
            return Some(Candidate {
                from: element.address,
                home,
                barcode: element.barcode.clone(),
                key,
            });
        }
        None
    }
}

/// Why the cartridge in `element` is no use to this drive, before a load;
/// None when nothing known speaks against it.
pub fn unusable(element: &Element, judge: &Judge<'_>) -> Option<String> {
    if element.is_cleaning() {
        return Some("a cleaning cartridge".into());
    }
    if element.medium_type == Some(MediumType::Diagnostic) {
        return Some("a diagnostic cartridge".into());
    }
    let media = element.barcode.as_deref().and_then(media::media);
    let worm = element.medium_type == Some(MediumType::Worm) || media.is_some_and(|m| m.worm);
    if worm && judge.access == Access::Write {
        return Some("a WORM cartridge, written once and never again".into());
    }
    media::refusal(judge.generation?, media?, judge.access)
}

/// `text` matches `pattern`, where `*` is any run of characters and `?`
/// any one; everything else stands for itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    // Where the last star was, and the text position it matched up to.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == '?' || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}
