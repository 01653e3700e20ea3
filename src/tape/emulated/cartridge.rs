//! The emulated autoloader's cartridges: what a tape holds (records of
//! their written sizes and filemarks, in order), its capacity and its
//! early-warning zone, and the questions tests ask of it afterwards.
//!
//! A cartridge is plain data: the drive (`drive.rs`, `records.rs`)
//! applies st's rules when it writes or reads one.

use std::time::Duration;

/// What a cartridge holds, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Record(Vec<u8>),
    Filemark,
}

/// One tape.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cartridge {
    pub capacity_bytes: u64,
    /// The early-warning zone: writes that start inside the last this many
    /// bytes hit the end-of-medium rules.
    pub early_warning_bytes: u64,
    pub write_protected: bool,
    pub items: Vec<Item>,
    /// How long after a load the drive needs before it reports the
    /// cartridge ready (`Duration::MAX`: never).
    pub load_delay: Duration,
    /// A cleaning cartridge: never ready for data. The drive answers TEST
    /// UNIT READY with sense 30/03, as mhvtl's did in the tape lab.
    pub cleaning: bool,
    /// A cartridge the drive cannot use (another generation): it answers
    /// TEST UNIT READY with sense 30/00, as drives do for incompatible
    /// media.
    pub incompatible: bool,
    /// Its memory chip and the drive's statistics on it (`memory.rs`).
    pub memory: super::memory::CartridgeMemory,
    /// The records written encrypted, by item index, with the key and
    /// U-KAD of each (`encryption.rs`).
    pub seals: std::collections::BTreeMap<usize, super::crypt_state::Seal>,
}

impl Cartridge {
    /// A blank cartridge.
    pub fn blank(capacity_bytes: u64, early_warning_bytes: u64) -> Cartridge {
        Cartridge {
            capacity_bytes,
            early_warning_bytes,
            ..Cartridge::default()
        }
    }

    /// A cartridge already holding `records`, then a filemark.
    pub fn with_records(records: Vec<Vec<u8>>) -> Cartridge {
        let capacity_bytes = records.iter().map(|r| r.len() as u64).sum::<u64>() + (1 << 20);
        let mut items: Vec<Item> = records.into_iter().map(Item::Record).collect();
        items.push(Item::Filemark);
        Cartridge {
            capacity_bytes,
            early_warning_bytes: 0,
            items,
            ..Cartridge::default()
        }
    }

    /// The data bytes of the records before the first filemark.
    pub fn first_file(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for item in &self.items {
            match item {
                Item::Record(r) => out.extend_from_slice(r),
                Item::Filemark => break,
            }
        }
        out
    }

    /// The sizes of the records before the first filemark: the data of a
    /// volume tapebuf wrote, without its trailer.
    pub fn data_record_sizes(&self) -> Vec<usize> {
        self.items
            .iter()
            .map_while(|i| match i {
                Item::Record(r) => Some(r.len()),
                Item::Filemark => None,
            })
            .collect()
    }

    /// The volume trailer tapebuf wrote after the data: the one record of
    /// the second tape file, if it is a trailer.
    pub fn trailer(&self) -> Option<crate::volume::Trailer> {
        let mark = self.items.iter().position(|i| *i == Item::Filemark)?;
        match (self.items.get(mark + 1), self.items.get(mark + 2)) {
            (Some(Item::Record(r)), Some(Item::Filemark)) => {
                crate::volume::Trailer::parse(r).ok().flatten()
            }
            _ => None,
        }
    }

    /// The sizes of all records, in order.
    pub fn record_sizes(&self) -> Vec<usize> {
        self.items
            .iter()
            .filter_map(|i| match i {
                Item::Record(r) => Some(r.len()),
                Item::Filemark => None,
            })
            .collect()
    }

    pub fn filemarks(&self) -> usize {
        self.items.iter().filter(|i| **i == Item::Filemark).count()
    }

    /// Takes every item from `position` on off the tape, as a write there
    /// does.
    pub(super) fn cut(&mut self, position: usize) {
        self.items.truncate(position);
        self.seals.split_off(&position);
    }

    /// True when item `item` was written encrypted.
    pub fn is_encrypted(&self, item: usize) -> bool {
        self.seals.contains_key(&item)
    }

    pub(super) fn used_bytes(&self, upto: usize) -> u64 {
        self.items[..upto]
            .iter()
            .map(|i| match i {
                Item::Record(r) => r.len() as u64,
                Item::Filemark => 0,
            })
            .sum()
    }
}
