//! The lines a person or a script reads: the status line (SIGUSR1) and the
//! one-line summary at the end.
//!
//! The summary is one grep-able line, short enough to read at a glance
//! (about 160 characters for an ordinary run): bytes in and out, time and
//! rate. Detail that only matters on a tape (underruns, which stop the
//! drive; the ring and its kernel memory; each volume's bytes) is added for
//! a tape output, with `--verbose`, or after anything went wrong. The time
//! the ring spent near full and near empty is added there too, and for a
//! paced run, whenever it reached a tenth of a second. What went
//! wrong is never left out: every failed output, a failed input, a stall,
//! and bytes read but not committed, so no data is ever lost silently.
//! `--summary-json` carries every fact whatever the line shows.

use super::drive_health::DriveHealth;
pub use super::library_facts::Cartridge;
use super::volume_list::volume_lists;
pub use super::volume_list::VolumeList;
use crate::base::console::message;
use crate::base::size::{bytes_per_s, Bytes, Rate};
use crate::manifest::CatalogRef;
use crate::net::facts::LinkFacts;
use crate::pace::PaceReport;
use crate::pipeline::stats::{Snapshot, Stats};
use crate::pipeline::RingPath;

/// One status line, as SIGUSR1 prints it; during a volume change it ends
/// with what the change is doing.
pub fn status_line(stats: &Stats) -> String {
    let s = stats.snapshot();
    let change = crate::volume::change_notes(stats.volume_logs())
        .map(|note| format!(", {note}"))
        .unwrap_or_default();
    message!(
        "status: in {} bytes ({}), out {} bytes, {:.1} s, {}, buffer {:.0}% full, {} underruns, {} overruns{change}",
        s.read_bytes,
        Bytes(s.read_bytes),
        s.written_bytes,
        s.seconds,
        Rate(bytes_per_s(s.written_bytes, s.seconds)),
        s.fill_pct,
        s.underruns,
        s.overruns
    )
}

/// The end-of-run facts that decide the summary and the exit status.
#[derive(Debug, Clone)]
pub struct Summary {
    pub snapshot: Snapshot,
    /// Names and reasons of outputs that failed.
    pub failed_outputs: Vec<String>,
    pub input_error: Option<String>,
    /// The signal that stopped the run, by name.
    pub interrupted_by: Option<&'static str>,
    /// Why the watchdog ended the run.
    pub stalled: Option<String>,
    /// The bytes on each volume, one entry per input or output that spans
    /// volumes.
    pub volumes: Vec<VolumeList>,
    /// What the input taught us, such as a tape's record size.
    pub input_note: Option<String>,
    /// Every network stream, the input's first: peer and privacy.
    pub links: Vec<LinkFacts>,
    /// Zeros added by `--pad`.
    pub pad_bytes: u64,
    /// Some output is a tape drive, where each underrun was a stop.
    pub tape_output: bool,
    /// How `--pace` went, when it was on.
    pub pace: Option<PaceReport>,
    /// Which ring ran (zero-copy or copying) and why.
    pub ring: RingPath,
    /// The most bytes the ring held at once: full blocks, and the one
    /// being filled.
    pub peak_held_bytes: u64,
    /// Seconds the ring spent near full and near empty (`ring_time`).
    pub near_full_s: f64,
    pub near_empty_s: f64,
    /// `--verbose`: the line gives every detail, as on a tape.
    pub verbose: bool,
    /// What each local tape drive said of its health.
    pub drives: Vec<DriveHealth>,
    /// `--catalog`: the catalog written, or why not.
    pub catalog: Option<CatalogRef>,
}

/// The most bytes the ring held at once, counted in whole blocks: the
/// most full blocks waiting, and the one the reader was filling.
fn peak_held_bytes(stats: &Stats) -> u64 {
    use std::sync::atomic::Ordering::Relaxed;
    if stats.read_bytes.load(Relaxed) == 0 {
        return 0;
    }
    let blocks = (stats.peak_blocks_held.load(Relaxed) + 1).min(stats.blocks_in_ring as u64);
    blocks * stats.block_bytes
}

impl Summary {
    pub fn collect(
        stats: &Stats,
        interrupted_by: Option<&'static str>,
        stalled: Option<String>,
    ) -> Summary {
        let failed_outputs = (0..stats.outputs.len())
            .filter_map(|i| stats.output_error(i))
            .collect();
        let mut snapshot = stats.snapshot();
        // While running, a failed output's count is left out so that the
        // others are seen to move; the final count is what every output
        // holds, so that "out" never looks complete while one failed short.
        if let Some(least) = stats.least_committed_bytes() {
            snapshot.written_bytes = least;
        }
        Summary {
            snapshot,
            failed_outputs,
            input_error: stats.input_error(),
            interrupted_by,
            stalled,
            volumes: volume_lists(stats),
            input_note: stats.input_note(),
            links: stats.links(),
            pad_bytes: stats.pad_bytes.load(std::sync::atomic::Ordering::Relaxed),
            tape_output: stats.tape_output,
            pace: stats.pace_report(),
            ring: stats.ring.clone(),
            peak_held_bytes: peak_held_bytes(stats),
            near_full_s: stats
                .near_full_ns
                .load(std::sync::atomic::Ordering::Relaxed) as f64
                / 1e9,
            near_empty_s: stats
                .near_empty_ns
                .load(std::sync::atomic::Ordering::Relaxed) as f64
                / 1e9,
            verbose: false,
            drives: DriveHealth::collect(stats),
            catalog: None,
        }
    }

    /// The same summary, with what `--catalog` made.
    pub fn with_catalog(self, catalog: Option<CatalogRef>) -> Summary {
        Summary { catalog, ..self }
    }

    /// The same summary, with every detail in its line when `verbose`.
    pub fn verbose(self, verbose: bool) -> Summary {
        Summary { verbose, ..self }
    }

    /// Bytes read that did not reach every output that is still alive.
    /// Padding counts as written only once the data before it is.
    pub fn uncommitted_bytes(&self) -> u64 {
        (self.snapshot.read_bytes + self.pad_bytes).saturating_sub(self.snapshot.written_bytes)
    }

    /// True when every byte read reached every output and nothing failed.
    pub fn is_clean(&self) -> bool {
        self.failed_outputs.is_empty()
            && self.input_error.is_none()
            && self.interrupted_by.is_none()
            && self.stalled.is_none()
            && self.uncommitted_bytes() == 0
    }

    /// True when a drive raised a critical TapeAlert flag: the exit
    /// status says so even when every byte was committed.
    pub fn drive_alert(&self) -> bool {
        self.drives.iter().any(DriveHealth::alarmed)
    }

    /// True when the line gives every detail: for a tape, where an
    /// underrun is a stop; with `--verbose`; and after anything went
    /// wrong, where every clue counts.
    pub fn detailed(&self) -> bool {
        self.tape_output || self.verbose || !self.is_clean()
    }

    /// The single summary line: the counts, then the notes, then the
    /// detail when `detailed`, then what went wrong.
    pub fn line(&self) -> String {
        let s = &self.snapshot;
        let detailed = self.detailed();
        let mut counts = String::new();
        if let Some(sig) = self.interrupted_by {
            counts += &format!("interrupted by {sig}: ");
        }
        counts += &format!(
            "in {} bytes, out {} bytes ({}), {:.3} s, {}",
            s.read_bytes,
            s.written_bytes,
            Bytes(s.written_bytes),
            s.seconds,
            Rate(bytes_per_s(s.written_bytes, s.seconds)),
        );
        if detailed {
            counts += &format!(", {} underruns, {} overruns", s.underruns, s.overruns);
        }
        let mut parts = vec![counts];
        // An underrun costs a tape drive a stop; elsewhere it only says
        // the input was the slower side, which is worth words only when
        // asked for.
        if s.underruns > 0 && self.tape_output {
            parts.push("each underrun stopped the drive".into());
        } else if s.underruns > 0 && self.verbose {
            parts.push(
                "underruns: the input was the slower side, which only a tape would feel".into(),
            );
        }
        parts.extend(self.pace.as_ref().map(PaceReport::describe));
        if detailed || self.pace.is_some() {
            parts.extend(self.ring_time());
        }
        parts.extend(self.input_note.clone());
        // A private output's privacy; the input's is in its note.
        parts.extend(
            (self.links.iter())
                .filter(|l| l.is_output())
                .filter_map(|l| Some(format!("{}: {}", l.endpoint, l.clause()?))),
        );
        if self.pad_bytes > 0 {
            parts.push(format!(
                "final block padded with {} zero bytes",
                self.pad_bytes
            ));
        }
        parts.extend(self.volumes.iter().filter_map(|v| match detailed {
            true => Some(v.every_volume()),
            false => v.brief(),
        }));
        parts.extend(self.volumes.iter().flat_map(VolumeList::cleaned));
        parts.extend((self.volumes.iter()).filter_map(|v| {
            let note = v.trailer_note.as_ref()?;
            Some(format!("{}: {note}", v.endpoint))
        }));
        parts.extend(
            self.volumes
                .iter()
                .filter_map(VolumeList::protection_clause),
        );
        parts.extend(
            self.volumes
                .iter()
                .filter_map(VolumeList::encryption_clause),
        );
        parts.extend(self.drives.iter().filter_map(DriveHealth::describe));
        parts.extend(self.catalog.as_ref().map(super::catalog_clause::clause));
        if detailed {
            parts.push(self.ring.describe(self.peak_held_bytes));
        }
        parts.extend(self.troubles());
        message!("summary: {}", parts.join("; "))
    }

    /// Whether the input's end was proved (by a trailer or a manifest),
    /// or why not; None when the input was not read as volumes.
    pub fn bounded(&self) -> Option<Result<(), String>> {
        let input = self.volumes.iter().find(|v| v.endpoint.starts_with("-i "));
        input.and_then(|v| v.bounded.clone())
    }

    /// The time near full and near empty, for a run that paced or gives
    /// every detail; None when neither reached a tenth of a second.
    fn ring_time(&self) -> Option<String> {
        (self.near_full_s >= 0.05 || self.near_empty_s >= 0.05).then(|| {
            format!(
                "ring near full {:.1} s, near empty {:.1} s",
                self.near_full_s, self.near_empty_s
            )
        })
    }

    /// What went wrong, in capitals where a script greps for it; empty
    /// for a clean run.
    fn troubles(&self) -> Vec<String> {
        let mut troubles = Vec::new();
        if self.input_error.is_some() {
            troubles.push("INPUT FAILED".to_string());
        }
        if self.stalled.is_some() {
            troubles.push("STALLED".to_string());
        }
        for f in &self.failed_outputs {
            troubles.push(format!("FAILED {f}"));
        }
        let lost = self.uncommitted_bytes();
        if lost > 0 {
            troubles.push(format!("{lost} bytes read but not committed"));
        }
        if !self.is_clean() {
            troubles.extend(self.volumes.iter().filter_map(VolumeList::safe));
        }
        troubles.extend(self.drives.iter().filter_map(DriveHealth::alarm));
        troubles
    }
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
