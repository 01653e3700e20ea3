//! The sweep: at each block size and in each run, write the test stream,
//! read it back at the same size, and check every byte.
//!
//! Runs are interleaved across sizes (run 1 of every size, then run 2 ...)
//! so that drift in the target (a disk warming up, a busy link) falls on
//! every size alike and shows as spread rather than as a false curve. Each
//! pass uses its own seed, so bytes left behind by an earlier pass can
//! never pass for this one's. A byte that reads back wrong is recorded with
//! its offset and the sweep goes on, so the figures are complete; the size
//! is then not verified and never recommended. A stop request (a signal) is
//! honoured between blocks. A size the drive or its controller refuses at
//! its first block (EBUSY, EINVAL, EOVERFLOW: st's answers to a transfer
//! too large) is marked "not supported by this drive/controller" and
//! skipped in later runs; the sweep goes on with the other sizes.
//!
//! The parts: `pass` (one run at one size: the write, the read-back and
//! their timing, with the data made and checked on a helper thread, as
//! tapebuf's own ring keeps a drive fed) and `fault` (a byte that read back
//! wrong, and the errors that stop a sweep).

mod fault;
mod pass;

pub use fault::{Mismatch, SweepError};

use self::pass::OneRun;
use super::data::{pass_seed, Pattern};
use super::measure::{summarize, Clock, PassTiming};
use super::recommend::recommend;
use super::schema::{DataKind, ProbeResults, SizeResult, SCHEMA, SCHEMA_VERSION};
use super::target::ProbeTarget;
use crate::base::errors::plain;
use crate::tape::drive::limits::is_refused_size;

/// What to measure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Ascending, no repeats.
    pub sizes: Vec<u64>,
    pub runs: u32,
    /// Bytes written and read back per pass.
    pub stream_bytes: u64,
    pub data: DataKind,
}

/// Every pass at one size.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SizeRuns {
    pub block_bytes: u64,
    pub writes: Vec<PassTiming>,
    pub reads: Vec<PassTiming>,
    pub mismatches: Vec<Mismatch>,
    /// Why the target refused this size, which was then skipped.
    pub refused: Option<String>,
}

/// The outcome of a whole sweep, in ascending block size.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sweep {
    pub sizes: Vec<SizeRuns>,
}

/// One finished run at one size, for progress lines.
pub struct Progress<'a> {
    pub run: u32,
    pub runs: u32,
    pub block_bytes: u64,
    pub write: &'a PassTiming,
    pub read: &'a PassTiming,
    pub mismatch: Option<&'a Mismatch>,
}

/// Runs the sweep on `target`. `stop` says whether, and by which signal,
/// to stop; it is asked between blocks.
pub fn sweep(
    target: &mut dyn ProbeTarget,
    plan: &Plan,
    clock: &dyn Clock,
    stop: &dyn Fn() -> Option<i32>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Sweep, SweepError> {
    let mut out = Sweep {
        sizes: plan
            .sizes
            .iter()
            .map(|&block_bytes| SizeRuns {
                block_bytes,
                ..SizeRuns::default()
            })
            .collect(),
    };
    for run in 1..=plan.runs {
        for entry in &mut out.sizes {
            if entry.refused.is_some() {
                continue;
            }
            let pass = OneRun {
                target: &mut *target,
                clock,
                stop,
                block_bytes: entry.block_bytes,
                run,
                stream_bytes: plan.stream_bytes,
                pattern: Pattern::new(plan.data, pass_seed(entry.block_bytes, run)),
            };
            let (write, read, mismatch) = match pass.run() {
                Err(e) => match refusal(&e) {
                    Some(why) => {
                        // Close the pass the refusal left open; the size
                        // is reported, not measured.
                        let _ = target.end();
                        entry.refused = Some(why);
                        continue;
                    }
                    None => return Err(e),
                },
                Ok(done) => done,
            };
            entry.writes.push(write);
            entry.reads.push(read);
            if let Some(m) = mismatch {
                entry.mismatches.push(m);
            }
            progress(Progress {
                run,
                runs: plan.runs,
                block_bytes: entry.block_bytes,
                write: &write,
                read: &read,
                mismatch: mismatch.as_ref(),
            });
        }
    }
    Ok(out)
}

/// The reason to report when `e` is a refusal of the block size itself:
/// st's EBUSY, EINVAL or EOVERFLOW at the first block of a pass.
fn refusal(e: &SweepError) -> Option<String> {
    match e {
        SweepError::Io {
            doing: doing @ ("writing" | "reading back"),
            offset: 0,
            block_bytes,
            source,
            ..
        } if is_refused_size(source) => Some(format!(
            "not supported by this drive/controller ({doing} a {}-byte block: {})",
            block_bytes,
            plain(source)
        )),
        _ => None,
    }
}

impl Sweep {
    /// Every mismatch, by run and then size.
    pub fn mismatches(&self) -> Vec<Mismatch> {
        let mut all: Vec<Mismatch> = self
            .sizes
            .iter()
            .flat_map(|s| s.mismatches.iter().copied())
            .collect();
        all.sort_by_key(|m| (m.run, m.block_bytes));
        all
    }

    /// The summaries per size, ascending.
    pub fn size_results(&self) -> Vec<SizeResult> {
        self.sizes
            .iter()
            .map(|s| SizeResult {
                block_bytes: s.block_bytes,
                write: summarize(&s.writes),
                read: summarize(&s.reads),
                verified: s.mismatches.is_empty() && s.refused.is_none(),
                refused: s.refused.clone(),
            })
            .collect()
    }

    /// The whole result, as `--json` writes it.
    pub fn results(&self, target: &dyn ProbeTarget, plan: &Plan, direct: bool) -> ProbeResults {
        let results = self.size_results();
        ProbeResults {
            schema: SCHEMA.to_string(),
            version: SCHEMA_VERSION,
            tapebuf: env!("CARGO_PKG_VERSION").to_string(),
            target: target.name().to_string(),
            target_kind: target.kind(),
            data: plan.data,
            stream_bytes: plan.stream_bytes,
            runs: plan.runs,
            direct,
            recommend: recommend(&results),
            results,
        }
    }
}
