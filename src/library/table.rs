//! The inventory as a table for people, made from the same value as the
//! JSON (`view.rs`): a headline with the counts, then the drives, the
//! storage slots and the import/export slots, one line each, the tape
//! nodes that are no drive of this changer, and the cleaning cartridges.
//! Drives are numbered from 0 and slots from 1, as mtx numbers them; a
//! drive's "From" is the storage slot its cartridge came from.
//!
//! The invariants: every column is as wide as its widest cell, and every
//! cell is one word, so that the table lines up and `awk` can read it:
//! an unknown or absent value is `-`, and a barcode, node or serial that
//! is empty, `-`, or holds a space, a quote or a character that is not
//! printable is shown quoted with Rust's escapes, a space as `\u{20}`.
//! Only the last column, the note (an exception, why a drive has no node),
//! is free text, made one line.

use super::medium::words;
use super::schema::{DriveJson, LibraryJson, Medium, PortalJson, SlotJson, TapeNodeJson};
use crate::base::escape::one_line;

/// Columns between cells.
const GAP: &str = "  ";
/// An absent value.
const NONE: &str = "-";

/// The whole table, each line ended by a newline.
pub fn render(view: &LibraryJson) -> String {
    let mut lines = vec![headline(view), String::new()];
    lines.extend(drives(&view.drives));
    lines.extend(unmatched(&view.tape_nodes));
    lines.push(String::new());
    lines.extend(slots(&view.slots));
    lines.push(String::new());
    lines.extend(portals(&view.import_export));
    lines.push(String::new());
    lines.push(cleaning(view));
    lines.into_iter().map(|l| l + "\n").collect()
}

/// "Changer /dev/sch0: 2 drives, 12 storage slots, 1 import/export slot, 1
/// transport".
fn headline(view: &LibraryJson) -> String {
    format!(
        "Changer {}: {}, {}, {}, {}",
        one_line(&view.changer),
        count(view.drives.len(), "drive"),
        count(view.slots.len(), "storage slot"),
        count(view.import_export.len(), "import/export slot"),
        count(view.transports, "transport"),
    )
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn drives(drives: &[DriveJson]) -> Vec<String> {
    if drives.is_empty() {
        return vec!["Drives: none".to_string()];
    }
    // One reason shared by every drive is said once, under the table.
    let first = drives[0].node_problem.as_ref();
    let shared = first.filter(|_| drives.iter().all(|d| d.node_problem.as_ref() == first));
    let mut rows = vec![heading(&[
        "Drive", "Status", "Barcode", "Medium", "From", "Node", "Serial",
    ])];
    rows.extend(drives.iter().map(|d| {
        let problem = d.node_problem.as_ref().filter(|_| shared.is_none());
        vec![
            d.element.to_string(),
            status(d.full),
            word(d.barcode.as_deref()),
            medium(d.medium),
            d.from_slot.map_or(NONE.to_string(), |s| s.to_string()),
            word(d.node.as_deref()),
            word(d.serial.as_deref()),
            note(&[d.exception.as_deref(), problem.map(String::as_str)]),
        ]
    }));
    let mut lines = columns(rows);
    if let Some(why) = shared {
        lines.push(format!("Nodes: {}", one_line(why)));
    }
    lines
}

/// "Tape nodes of no drive here: /dev/nst2 (serial X), /dev/nst3 (no
/// serial)", when there are any.
fn unmatched(nodes: &[TapeNodeJson]) -> Option<String> {
    let list: Vec<String> = (nodes.iter())
        .filter(|n| n.element.is_none())
        .map(|n| match &n.serial {
            Some(s) => format!("{} (serial {})", word(Some(&n.node)), word(Some(s))),
            None => format!("{} (no serial in sysfs)", word(Some(&n.node))),
        })
        .collect();
    (!list.is_empty()).then(|| format!("Tape nodes of no drive here: {}", list.join(", ")))
}

fn slots(slots: &[SlotJson]) -> Vec<String> {
    if slots.is_empty() {
        return vec!["Storage slots: none".to_string()];
    }
    let mut rows = vec![heading(&["Slot", "Status", "Barcode", "Medium"])];
    rows.extend(slots.iter().map(|s| {
        vec![
            s.slot.to_string(),
            status(s.full),
            word(s.barcode.as_deref()),
            medium(s.medium),
            note(&[s.exception.as_deref()]),
        ]
    }));
    columns(rows)
}

fn portals(portals: &[PortalJson]) -> Vec<String> {
    if portals.is_empty() {
        return vec!["Import/export slots: none".to_string()];
    }
    let mut rows = vec![heading(&["Import/export", "Status", "Barcode", "Medium"])];
    rows.extend(portals.iter().map(|p| {
        vec![
            p.slot.to_string(),
            status(p.full),
            word(p.barcode.as_deref()),
            medium(p.medium),
            note(&[
                p.exception.as_deref(),
                p.imported.then_some("put in by the operator"),
                (!p.accessible).then_some("the robot cannot reach it"),
            ]),
        ]
    }));
    columns(rows)
}

/// "Cleaning cartridges: CLN009L1 in slot 9, CLN010L1 in drive 1".
fn cleaning(view: &LibraryJson) -> String {
    let cleaning = |m: Option<Medium>| m == Some(Medium::Cleaning);
    let found: Vec<String> = (view.drives.iter())
        .filter(|d| cleaning(d.medium))
        .map(|d| (d.barcode.as_deref(), format!("drive {}", d.element)))
        .chain(
            (view.slots.iter())
                .filter(|s| cleaning(s.medium))
                .map(|s| (s.barcode.as_deref(), format!("slot {}", s.slot))),
        )
        .chain(
            (view.import_export.iter())
                .filter(|p| cleaning(p.medium))
                .map(|p| {
                    (
                        p.barcode.as_deref(),
                        format!("import/export slot {}", p.slot),
                    )
                }),
        )
        .map(|(barcode, place)| match barcode {
            Some(b) => format!("{} in {place}", word(Some(b))),
            None => format!("one without a barcode in {place}"),
        })
        .collect();
    if found.is_empty() {
        "Cleaning cartridges: none".to_string()
    } else {
        format!("Cleaning cartridges: {}", found.join(", "))
    }
}

fn heading(names: &[&str]) -> Vec<String> {
    let mut row: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    row.push("Note".to_string());
    row
}

fn status(full: bool) -> String {
    if full { "full" } else { "empty" }.to_string()
}

fn medium(m: Option<Medium>) -> String {
    m.map_or(NONE, words).to_string()
}

/// A value as one cell: itself when it is one plain word, quoted with
/// escapes (a space too) when not, `-` when absent.
fn word(value: Option<&str>) -> String {
    match value {
        None => NONE.to_string(),
        Some(v) if v != NONE && !v.is_empty() && v.chars().all(plain) => v.to_string(),
        Some(v) => format!("{v:?}").replace(' ', "\\u{20}"),
    }
}

fn plain(c: char) -> bool {
    !c.is_whitespace() && !c.is_control() && c != '"' && c != '\\'
}

/// The parts of a note that are there, in one line.
fn note(parts: &[Option<&str>]) -> String {
    let parts: Vec<String> = parts.iter().flatten().map(|p| one_line(p)).collect();
    parts.join("; ")
}

/// `rows` (the heading first) with every column as wide as its widest
/// cell; the last column, the note, is left as it is, and dropped with
/// its heading when no row has one.
fn columns(mut rows: Vec<Vec<String>>) -> Vec<String> {
    if rows
        .iter()
        .skip(1)
        .all(|r| r.last().is_none_or(String::is_empty))
    {
        rows.iter_mut().for_each(|r| {
            r.pop();
        });
    }
    let cells = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cells)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    rows.iter()
        .map(|row| {
            let last = row.len().saturating_sub(1);
            let line: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if i == last {
                        c.clone()
                    } else {
                        format!("{c:<w$}", w = widths[i])
                    }
                })
                .collect();
            line.join(GAP).trim_end().to_string()
        })
        .collect()
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
