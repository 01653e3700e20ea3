//! A changer's whole inventory at one moment: every transport, slot,
//! import/export slot and drive with what it holds. Read fresh at the start
//! of each run and after each move that matters; never kept across runs,
//! because a library renumbers after a reconfiguration.

use super::element::{Element, ElementAddress, ElementKind};
use super::error::ChangerError;
use super::medium_changer::MediumChanger;

/// Every element of a changer, by kind, each in index order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inventory {
    pub transports: Vec<Element>,
    pub slots: Vec<Element>,
    pub portals: Vec<Element>,
    pub drives: Vec<Element>,
}

impl Inventory {
    /// Reads every element of `changer`, kind by kind.
    pub fn read<C: MediumChanger + ?Sized>(changer: &mut C) -> Result<Inventory, ChangerError> {
        Ok(Inventory {
            transports: changer.elements(ElementKind::Transport)?,
            slots: changer.elements(ElementKind::Slot)?,
            portals: changer.elements(ElementKind::Portal)?,
            drives: changer.elements(ElementKind::Drive)?,
        })
    }

    /// The elements of `kind`.
    pub fn of(&self, kind: ElementKind) -> &[Element] {
        match kind {
            ElementKind::Transport => &self.transports,
            ElementKind::Slot => &self.slots,
            ElementKind::Portal => &self.portals,
            ElementKind::Drive => &self.drives,
        }
    }

    /// Element `address`, if the changer has it.
    pub fn element(&self, address: ElementAddress) -> Option<&Element> {
        self.of(address.kind).get(address.index)
    }

    /// Every element, slots first, then import/export slots, then drives.
    pub fn holders(&self) -> impl Iterator<Item = &Element> {
        self.slots
            .iter()
            .chain(self.portals.iter())
            .chain(self.drives.iter())
    }

    /// Where the cartridge with barcode `barcode` is now: a slot, an
    /// import/export slot or a drive. Barcodes are compared exactly.
    pub fn find_barcode(&self, barcode: &str) -> Option<&Element> {
        self.holders()
            .find(|e| e.full && e.barcode.as_deref() == Some(barcode))
    }

    /// The first empty storage slot, where a cartridge without a known
    /// home can go.
    pub fn first_empty_slot(&self) -> Option<ElementAddress> {
        self.slots.iter().find(|e| !e.full).map(|e| e.address)
    }
}
