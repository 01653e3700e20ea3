//! Which `/dev/nstN` node each drive element of the changer is. The key is
//! the drive's serial number (VPD page 0x80 in sysfs, `drive_serial`)
//! against the changer's device identifier of each drive element
//! (`match_serial`), never the numbering: in the tape lab, drive element 0
//! attaches as /dev/st0 on some boots and as /dev/st1 on others. Only the
//! plain non-rewinding nodes count (`nst0`, not st's mode nodes `nst0a`,
//! `nst0l`, `nst0m`, nor the rewinding `st0`), so that each drive is one
//! node. A drive without a node says why, in words a user can act on.
//!
//! Listing the nodes (`tape_nodes`) reads the system; matching them
//! (`match_nodes`) is pure, so that it is tested against emulated
//! inventories.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use crate::tape::changer::{drive_serial, match_serial, serial_matches, Element, Inventory};

/// Why no drive has a node when the changer names none of its drives.
pub const NO_IDENTIFIERS: &str = "serial unknown: the changer gave no drive identifiers \
(run as root, or use --drive-element in a backup)";

/// A non-rewinding tape node of this system, and its drive's serial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TapeNode {
    pub path: PathBuf,
    /// `None` when sysfs has no serial for it.
    pub serial: Option<String>,
}

/// What is known of one drive element's node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriveNode {
    /// The node whose serial matched (the first, by number, when several
    /// nodes reach one drive).
    pub node: Option<PathBuf>,
    /// The drive's serial: the node's when one matched, else the last
    /// word of the changer's identifier.
    pub serial: Option<String>,
    /// Why `node` is `None`.
    pub problem: Option<String>,
}

/// Every drive element's node, and every node's drive element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeMap {
    /// One per drive element, in index order.
    pub drives: Vec<DriveNode>,
    /// One per tape node, in the order given: the drive element (0-based)
    /// it was matched to.
    pub elements: Vec<Option<usize>>,
}

/// N in a plain non-rewinding node's name `nstN`; `None` for any other
/// name (`nst0a`, `st0`, `nst`).
pub fn node_number(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("nst")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Every character device `dev/nstN`, by N, with its drive's serial.
pub fn tape_nodes(dev: &Path) -> Vec<TapeNode> {
    let Ok(entries) = std::fs::read_dir(dev) else {
        return Vec::new();
    };
    let mut numbered: Vec<(u32, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| Some((node_number(e.file_name().to_str()?)?, e.path())))
        .filter(|(_, path)| std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device()))
        .collect();
    numbered.sort();
    numbered
        .into_iter()
        .map(|(_, path)| TapeNode {
            serial: drive_serial(&path),
            path,
        })
        .collect()
}

/// Matches `nodes` to the drive elements of `inventory` by serial.
pub fn match_nodes(inventory: &Inventory, nodes: &[TapeNode]) -> NodeMap {
    let elements: Vec<Option<usize>> = nodes
        .iter()
        .map(|n| {
            let serial = n.serial.as_deref()?;
            match_serial(serial, inventory).ok().map(|a| a.index)
        })
        .collect();
    let no_identifiers = inventory.drives.iter().all(|d| d.identifier.is_none());
    let drives = inventory
        .drives
        .iter()
        .map(|drive| {
            let matched = elements
                .iter()
                .position(|&e| e == Some(drive.address.index));
            match matched {
                Some(i) => DriveNode {
                    node: Some(nodes[i].path.clone()),
                    serial: nodes[i].serial.clone(),
                    problem: None,
                },
                None => DriveNode {
                    node: None,
                    serial: identifier_serial(drive),
                    problem: Some(unmatched(drive, nodes, no_identifiers)),
                },
            }
        })
        .collect();
    NodeMap { drives, elements }
}

/// The serial in a drive element's identifier: its last word.
fn identifier_serial(drive: &Element) -> Option<String> {
    let id = drive.identifier.as_deref()?;
    id.split_whitespace().last().map(str::to_string)
}

/// Why no node matched `drive`.
fn unmatched(drive: &Element, nodes: &[TapeNode], no_identifiers: bool) -> String {
    if no_identifiers {
        return NO_IDENTIFIERS.to_string();
    }
    let (Some(id), Some(serial)) = (drive.identifier.as_deref(), identifier_serial(drive)) else {
        return "serial unknown: the changer gave no identifier for this drive \
(use --drive-element in a backup)"
            .to_string();
    };
    if nodes.is_empty() {
        return "no /dev/nst node on this system (is the st driver loaded?)".to_string();
    }
    let ambiguous = nodes
        .iter()
        .filter_map(|n| n.serial.as_deref())
        .any(|s| serial_matches(id, s));
    if ambiguous {
        return format!(
            "the serial {serial} matches more than one drive of the changer \
(use --drive-element in a backup)"
        );
    }
    let unknown: Vec<String> = nodes
        .iter()
        .filter(|n| n.serial.is_none())
        .map(|n| n.path.display().to_string())
        .collect();
    if unknown.is_empty() {
        format!("no /dev/nst node here has the serial {serial} (is the drive on another host?)")
    } else {
        format!(
            "no /dev/nst node here has the serial {serial}; sysfs gives no serial for {}",
            unknown.join(", ")
        )
    }
}

#[cfg(test)]
#[path = "nodes_tests.rs"]
mod tests;
