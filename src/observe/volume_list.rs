//! Each endpoint's volumes as the summary tells them: the bytes on each,
//! the cartridges a library loaded and the cleanings between them, what
//! became of the trailers, an input's proved end, and a local tape's
//! logical block protection.

use super::library_facts::{library_facts, Cartridge};
use crate::pipeline::stats::Stats;
use crate::tape::Protection;

/// The bytes on each volume of one endpoint that spans volumes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VolumeList {
    /// How the command line names it: "-i NAME" or "-o NAME".
    pub endpoint: String,
    /// Each volume's bytes, from volume 1.
    pub bytes: Vec<u64>,
    /// Each volume's cartridge, when a tape library loaded it: its barcode
    /// and home slot (from 1), from volume 1; empty without a library.
    pub cartridges: Vec<Cartridge>,
    /// The cleanings the library made between volumes, in words.
    pub cleanings: Vec<String>,
    /// What became of an output's trailers, when they could not all be
    /// kept as meant (a filesystem without user attributes).
    pub trailer_note: Option<String>,
    /// An input's end: proved (Ok) or why nothing bounded it; None for an
    /// output.
    pub bounded: Option<Result<(), String>>,
    /// A local tape's logical block protection; None for other media.
    pub protection: Option<Protection>,
}

impl VolumeList {
    /// "-o /dev/nst0: every block checked by the drive's logical block
    /// protection (CRC32C)", or why there was none.
    pub(super) fn protection_clause(&self) -> Option<String> {
        let p = self.protection.as_ref()?;
        Some(match (p.method, &p.why_none) {
            (Some(m), _) => format!(
                "{}: every block checked by the drive's logical block protection ({})",
                self.endpoint,
                m.name()
            ),
            (None, Some(why)) => format!("{}: no logical block protection ({why})", self.endpoint),
            (None, None) => format!("{}: no logical block protection", self.endpoint),
        })
    }

    /// "-o /dev/nst0: every block encrypted by the drive (AES-256-GCM)
    /// with key tapebuf:…" (or decrypted, reading), when it was; with a
    /// key that was in the drive before the run, which one and that.
    pub(super) fn encryption_clause(&self) -> Option<String> {
        let p = self.protection.as_ref()?;
        let done = match self.endpoint.starts_with("-i") {
            true => "decrypted",
            false => "encrypted",
        };
        let by = match (p.key, &p.key_left) {
            (_, Some(what)) => format!(
                "with {what}, which was in the drive before this run (not from --encrypt-key or --key-dir)"
            ),
            (Some(key), None) => format!("(AES-256-GCM) with key {key}"),
            (None, None) => return None,
        };
        Some(format!(
            "{}: every block {done} by the drive {by}",
            self.endpoint
        ))
    }

    /// "-o /dev/nst0 volumes: #1 1048576 bytes, #2 524288 bytes", and
    /// each cartridge when a library loaded them: "#1 E01001L6 from slot 1
    /// 1048576 bytes".
    pub(super) fn every_volume(&self) -> String {
        let each: Vec<String> = (self.bytes.iter().enumerate())
            .map(|(i, b)| match self.cartridges.get(i) {
                Some(c) => format!("#{} {} {b} bytes", i + 1, c.describe()),
                None => format!("#{} {b} bytes", i + 1),
            })
            .collect();
        format!("{} volumes: {}", self.endpoint, each.join(", "))
    }

    /// "-o /dev/nst0: 3 volumes (E01001L6 from slot 1, ...)" for a library's
    /// cartridges, which are always named; "-o NAME: 3 volumes" otherwise,
    /// and nothing for one volume that no library loaded.
    pub(super) fn brief(&self) -> Option<String> {
        let count = self.bytes.len();
        let plural = if count == 1 { "" } else { "s" };
        if !self.cartridges.is_empty() {
            let each: Vec<String> = self.cartridges.iter().map(Cartridge::describe).collect();
            return Some(format!(
                "{}: {count} volume{plural} ({})",
                self.endpoint,
                each.join(", ")
            ));
        }
        (count > 1).then(|| format!("{}: {count} volumes", self.endpoint))
    }

    /// After a run that did not end cleanly, which of a library's
    /// cartridges hold committed bytes: "-o /dev/nst0: safe on tape:
    /// volume 1 (E01010L6, 102760448 bytes)". None without a library.
    pub(super) fn safe(&self) -> Option<String> {
        if self.cartridges.is_empty() {
            return None;
        }
        let each: Vec<String> = (self.bytes.iter().zip(&self.cartridges).enumerate())
            .filter(|(_, (bytes, _))| **bytes > 0)
            .map(|(i, (bytes, c))| {
                let barcode = c.barcode.as_deref().unwrap_or("no barcode");
                format!("volume {} ({barcode}, {bytes} bytes)", i + 1)
            })
            .collect();
        Some(match each.is_empty() {
            true => format!("{}: nothing safe on tape", self.endpoint),
            false => format!("{}: safe on tape: {}", self.endpoint, each.join(", ")),
        })
    }

    /// "-o /dev/nst0: drive cleaned with CLN009L1 before volume 2", one
    /// for each cleaning.
    pub(super) fn cleaned(&self) -> impl Iterator<Item = String> + '_ {
        self.cleanings
            .iter()
            .map(|c| format!("{}: {c}", self.endpoint))
    }
}

/// Every volume list of the run: the input's, then the outputs'.
pub(super) fn volume_lists(stats: &Stats) -> Vec<VolumeList> {
    let list = |flag: &str, log: &crate::volume::VolumeLog| {
        let (cartridges, cleanings) = library_facts(log);
        VolumeList {
            endpoint: format!("{flag} {}", log.name),
            bytes: log.volumes(),
            cartridges,
            cleanings,
            trailer_note: log.trailer_note(),
            bounded: log.bounded(),
            protection: log.protection(),
        }
    };
    stats
        .flagged_volume_logs()
        .map(|(flag, log)| list(flag, log))
        .collect()
}
