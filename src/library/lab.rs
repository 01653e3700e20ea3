//! The tape lab's library as an emulated changer, for the unit tests of
//! the inventory: an STK L700 with two IBM LTO-6 drives whose identifiers
//! carry the serials LABDRV01 and LABDRV02, twelve slots (data in 1-7, a
//! WORM cartridge in 8, a cleaning cartridge in 9, 10-12 empty) and one
//! import/export slot.

use crate::tape::changer::Inventory;
use crate::tape::emulated::changer::{EmulatedChanger, Tape};

/// The drives' identifiers, as the lab's mhvtl gives them (DVCID: vendor
/// 8, product 16, serial 10, blank-filled).
pub const IDENTIFIERS: [&str; 2] = [
    "IBM     ULT3580-TD6     LABDRV01  ",
    "IBM     ULT3580-TD6     LABDRV02  ",
];

/// The lab's library, with drive identifiers.
pub fn library() -> EmulatedChanger {
    let mut slots: Vec<Option<Tape>> = (1..=7)
        .map(|n| Some(Tape::tagged(&format!("E0100{n}L6"))))
        .collect();
    slots.push(Some(Tape::tagged("W01008LW")));
    slots.push(Some(Tape::tagged("CLN009L1")));
    slots.extend([None, None, None]);
    let mut changer = EmulatedChanger::new(2, slots, 1);
    for (drive, id) in changer.drives.iter_mut().zip(IDENTIFIERS) {
        drive.identifier = Some(id.to_string());
    }
    changer
}

/// The inventory of `changer`, read through the trait as the command
/// reads a real one.
pub fn inventory(mut changer: EmulatedChanger) -> Inventory {
    Inventory::read(&mut changer).expect("an emulated changer answers")
}
