//! The lines a person or a script reads: the status line (SIGUSR1) and the
//! one-line summary at the end. The summary is a single grep-able line that
//! names every failed output and says plainly when bytes read were not
//! committed, so no data is ever lost silently.

use crate::base::size::{bytes_per_s, Bytes, Rate};
use crate::pace::PaceReport;
use crate::pipeline::stats::{Snapshot, Stats};
use crate::pipeline::RingPath;

/// One status line, as SIGUSR1 prints it; during a volume change it ends
/// with what the change is doing.
pub fn status_line(stats: &Stats) -> String {
    let s = stats.snapshot();
    let change = crate::tape::change_notes(stats.volume_logs())
        .map(|note| format!(", {note}"))
        .unwrap_or_default();
    format!(
        "tapebuf: status: in {} bytes ({}), out {} bytes, {:.1} s, {}, buffer {:.0}% full, {} underruns, {} overruns{change}",
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
    /// "/dev/nst0 volumes: #1 ... bytes, #2 ... bytes", one per input or
    /// output that spans volumes.
    pub volumes: Vec<String>,
    /// What the input taught us, such as a tape's record size.
    pub input_note: Option<String>,
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
        Summary {
            snapshot: stats.snapshot(),
            failed_outputs,
            input_error: stats.input_error(),
            interrupted_by,
            stalled,
            volumes: stats
                .input_volumes
                .iter()
                .map(|v| format!("-i {} volumes: {}", v.name, v.describe()))
                .chain(
                    stats
                        .outputs
                        .iter()
                        .filter_map(|o| o.volumes.as_ref())
                        .map(|v| format!("-o {} volumes: {}", v.name, v.describe())),
                )
                .collect(),
            input_note: stats.input_note(),
            pad_bytes: stats.pad_bytes.load(std::sync::atomic::Ordering::Relaxed),
            tape_output: stats.tape_output,
            pace: stats.pace_report(),
            ring: stats.ring.clone(),
            peak_held_bytes: peak_held_bytes(stats),
        }
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

    /// The single summary line.
    pub fn line(&self) -> String {
        let s = &self.snapshot;
        let mut line = String::from("tapebuf: summary: ");
        if let Some(sig) = self.interrupted_by {
            line += &format!("interrupted by {sig}: ");
        }
        line += &format!(
            "in {} bytes, out {} bytes ({}), {:.3} s, {}, {} underruns, {} overruns",
            s.read_bytes,
            s.written_bytes,
            Bytes(s.written_bytes),
            s.seconds,
            Rate(bytes_per_s(s.written_bytes, s.seconds)),
            s.underruns,
            s.overruns
        );
        if s.underruns > 0 {
            // An underrun costs a tape drive a stop; elsewhere it only
            // says the input was the slower side.
            line += match self.tape_output {
                true => "; each underrun stopped the drive",
                false => "; underruns: the input was the slower side, which only a tape would feel",
            };
        }
        if let Some(pace) = &self.pace {
            line += &format!("; {}", pace.describe());
        }
        if let Some(note) = &self.input_note {
            line += &format!("; {note}");
        }
        if self.pad_bytes > 0 {
            line += &format!("; final block padded with {} zero bytes", self.pad_bytes);
        }
        for v in &self.volumes {
            line += &format!("; {v}");
        }
        line += &format!("; {}", self.ring.describe(self.peak_held_bytes));
        if self.input_error.is_some() {
            line += "; INPUT FAILED";
        }
        if self.stalled.is_some() {
            line += "; STALLED";
        }
        for f in &self.failed_outputs {
            line += &format!("; FAILED {f}");
        }
        let lost = self.uncommitted_bytes();
        if lost > 0 {
            line += &format!("; {lost} bytes read but not committed");
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(read: u64, written: u64) -> Summary {
        Summary {
            snapshot: Snapshot {
                seconds: 2.0,
                read_bytes: read,
                written_bytes: written,
                underruns: 3,
                overruns: 4,
                ..Snapshot::default()
            },
            failed_outputs: vec![],
            input_error: None,
            interrupted_by: None,
            stalled: None,
            volumes: vec![],
            input_note: None,
            pad_bytes: 0,
            tape_output: false,
            pace: None,
            ring: RingPath::default(),
            peak_held_bytes: 0,
        }
    }

    #[test]
    fn clean_summary_has_counts_rate_and_no_warning() {
        let s = summary(1000, 1000);
        assert!(s.is_clean());
        let line = s.line();
        assert!(
            line.starts_with("tapebuf: summary: in 1000 bytes, out 1000 bytes"),
            "{line}"
        );
        assert!(line.contains("3 underruns, 4 overruns"), "{line}");
        assert!(line.contains("500 B/s"), "{line}");
        assert!(!line.contains("not committed"), "{line}");
    }

    #[test]
    fn underruns_are_explained_for_the_output_they_happened_on() {
        let mut s = summary(10, 10);
        assert!(
            s.line().contains(
                "3 underruns, 4 overruns; underruns: the input was the slower side, which only a tape would feel"
            ),
            "{}",
            s.line()
        );
        s.tape_output = true;
        assert!(s
            .line()
            .contains("4 overruns; each underrun stopped the drive"));
        s.snapshot.underruns = 0;
        assert!(!s.line().contains("underruns:"), "{}", s.line());
        assert!(!s.line().contains("stopped the drive"), "{}", s.line());
    }

    #[test]
    fn uncommitted_bytes_are_named_and_not_clean() {
        let s = summary(1000, 400);
        assert!(!s.is_clean());
        assert!(s.line().ends_with("; 600 bytes read but not committed"));
    }

    #[test]
    fn failed_outputs_and_interruption_are_named() {
        let mut s = summary(10, 10);
        s.failed_outputs
            .push("/mnt/b: write failed at byte 0: boom".into());
        s.interrupted_by = Some("SIGINT");
        let line = s.line();
        assert!(line.contains("interrupted by SIGINT"), "{line}");
        assert!(
            line.contains("FAILED /mnt/b: write failed at byte 0"),
            "{line}"
        );
        assert!(!s.is_clean());
    }
}
