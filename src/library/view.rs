//! The inventory as the command shows it, a pure function of what the
//! changer said (`Inventory`) and the tape nodes of this system: each
//! element numbered as mtx numbers it, what each cartridge is
//! (`medium.rs`), and each drive's node by serial (`nodes.rs`). Both the
//! table and the JSON are made from this one value, so they never
//! disagree.

use super::medium::medium_of;
use super::nodes::{match_nodes, TapeNode};
use super::schema::{
    DriveJson, LibraryJson, PortalJson, SlotJson, TapeNodeJson, SCHEMA, SCHEMA_VERSION,
};
use crate::tape::changer::{Element, ElementKind, Inventory};

/// The inventory of the changer named `changer`, with `nodes` matched to
/// its drives.
pub fn library_json(changer: &str, inventory: &Inventory, nodes: &[TapeNode]) -> LibraryJson {
    let map = match_nodes(inventory, nodes);
    let drives = inventory
        .drives
        .iter()
        .zip(&map.drives)
        .map(|(e, node)| DriveJson {
            element: e.address.index,
            full: e.full,
            barcode: barcode(e),
            medium: medium_of(e),
            from_slot: from_slot(e),
            exception: exception(e),
            identifier: e.identifier.clone(),
            serial: node.serial.clone(),
            node: node.node.as_ref().map(|p| p.display().to_string()),
            node_problem: node.problem.clone(),
        })
        .collect();
    LibraryJson {
        schema: SCHEMA.to_string(),
        version: SCHEMA_VERSION,
        changer: changer.to_string(),
        transports: inventory.transports.len(),
        drives,
        slots: inventory.slots.iter().map(slot).collect(),
        import_export: inventory.portals.iter().map(portal).collect(),
        tape_nodes: nodes
            .iter()
            .zip(&map.elements)
            .map(|(n, &element)| TapeNodeJson {
                node: n.path.display().to_string(),
                serial: n.serial.clone(),
                element,
            })
            .collect(),
    }
}

fn slot(e: &Element) -> SlotJson {
    SlotJson {
        slot: e.address.index + 1,
        full: e.full,
        barcode: barcode(e),
        medium: medium_of(e),
        exception: exception(e),
    }
}

fn portal(e: &Element) -> PortalJson {
    PortalJson {
        slot: e.address.index + 1,
        full: e.full,
        barcode: barcode(e),
        medium: medium_of(e),
        exception: exception(e),
        imported: e.full && e.import_export,
        accessible: e.access,
    }
}

/// The barcode of the cartridge in `e`: none for an empty element, whatever
/// a library left in the field.
fn barcode(e: &Element) -> Option<String> {
    e.barcode.clone().filter(|_| e.full)
}

/// The storage slot (1-based) the cartridge in `e` came from.
fn from_slot(e: &Element) -> Option<usize> {
    e.source
        .filter(|s| e.full && s.kind == ElementKind::Slot)
        .map(|s| s.index + 1)
}

fn exception(e: &Element) -> Option<String> {
    e.exception.as_ref().map(|x| x.words.clone())
}

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
