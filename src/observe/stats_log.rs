//! `--stats FILE`: the run's timeline as JSON lines (schema in `record/`
//! and the man page). Its own thread samples the counters every interval
//! and writes one record, flushed, so `tail -f` works; a slow disk only
//! delays the samples (the timer drops ticks it missed), never the data.
//! At the end it writes a last sample with the final totals, then the
//! summary record. After each sample comes a `move` record for every move
//! a tape library's robot made since the one before, and a `health` record
//! for each volume of a local tape drive that has ended since.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{bounded, select, tick, Sender};

use super::record::{HealthEntry, MoveEntry, Record, Sample, Start, SummaryRecord};
use crate::base::console::{message, say};
use crate::base::utc::utc_timestamp;
use crate::pipeline::stats::{Snapshot, Stats};

/// The sample for `now`, with the fill's range since the previous one
/// (and, from the snapshot, the pace the writer holds).
fn sample(stats: &Stats, now: &Snapshot, previous: Option<&Snapshot>) -> Sample {
    let (low, high) = stats.take_fill_range();
    let tenth = |p: f64| (p * 10.0).round() / 10.0;
    Sample {
        fill_min_pct: Some(tenth(low)),
        fill_max_pct: Some(tenth(high)),
        ..Sample::from_snapshots(now, previous)
    }
}

/// Starts the stats thread. Send it the summary to end it; it returns
/// false if the file could not be written (said on stderr once).
pub fn spawn(
    path: PathBuf,
    file: File,
    start: Start,
    stats: Arc<Stats>,
    every: Duration,
) -> (Sender<SummaryRecord>, JoinHandle<bool>) {
    let (end_tx, end_rx) = bounded::<SummaryRecord>(1);
    let thread = crate::base::thread::spawn("stats-log", move || {
        let mut out = StatsFile {
            path,
            out: BufWriter::new(file),
            failed: false,
        };
        out.write(&Record::Start(start));
        let ticks = tick(every);
        let mut previous: Option<Snapshot> = None;
        let mut moves = MovesWritten::default();
        let mut health = HealthWritten::default();
        loop {
            select! {
                recv(ticks) -> _ => {
                    let now = stats.snapshot();
                    out.write(&Record::Sample(sample(&stats, &now, previous.as_ref())));
                    previous = Some(now);
                    moves.write_new(&stats, &mut out);
                    health.write_new(&stats, &mut out, false);
                },
                recv(end_rx) -> end => {
                    // The run is over: the counters are final.
                    let now = stats.snapshot();
                    out.write(&Record::Sample(sample(&stats, &now, previous.as_ref())));
                    moves.write_new(&stats, &mut out);
                    health.write_new(&stats, &mut out, true);
                    if let Ok(summary) = end {
                        out.write(&Record::Summary(summary));
                    }
                    return !out.failed;
                },
            }
        }
    })
    .expect("spawning the stats-log thread");
    (end_tx, thread)
}

struct StatsFile {
    path: PathBuf,
    out: BufWriter<File>,
    failed: bool,
}

impl StatsFile {
    /// Writes and flushes one record; after a failure, does nothing.
    fn write(&mut self, record: &Record) {
        if self.failed {
            return;
        }
        let line = serde_json::to_string(record).expect("a record serialises");
        let result = writeln!(self.out, "{line}").and_then(|_| self.out.flush());
        if let Err(e) = result {
            self.failed = true;
            say(&message!(
                "--stats {}: cannot write: {e}; the timeline stops here",
                self.path.display()
            ));
        }
    }
}

/// How many of each endpoint's robot moves are in the file already.
#[derive(Default)]
struct MovesWritten(Vec<usize>);

impl MovesWritten {
    /// Writes a `move` record for every move of a tape library's robot
    /// since the last call, endpoint by endpoint, in order.
    fn write_new(&mut self, stats: &Stats, out: &mut StatsFile) {
        for (index, (flag, log)) in stats.flagged_volume_logs().enumerate() {
            let Some(loader) = log.loader() else {
                continue;
            };
            if self.0.len() <= index {
                self.0.resize(index + 1, 0);
            }
            let moves = loader.moves();
            for m in moves.iter().skip(self.0[index]) {
                out.write(&Record::Move(MoveEntry {
                    endpoint: format!("{flag} {}", log.name),
                    started: utc_timestamp(m.started),
                    from: m.from.to_string(),
                    to: m.to.to_string(),
                    barcode: m.barcode.clone(),
                    seconds: (m.seconds * 1000.0).round() / 1000.0,
                    error: m.error.clone(),
                }));
            }
            self.0[index] = moves.len();
        }
    }
}

/// How many of each endpoint's volumes have their `health` record in the
/// file already.
#[derive(Default)]
struct HealthWritten(Vec<u32>);

impl HealthWritten {
    /// Writes a `health` record for each volume that ended since the last
    /// call (one that a later volume followed; every one, `at_end`).
    fn write_new(&mut self, stats: &Stats, out: &mut StatsFile, at_end: bool) {
        for (index, (flag, log)) in stats.flagged_volume_logs().enumerate() {
            let Some(health) = log.health() else {
                continue;
            };
            if self.0.len() <= index {
                self.0.resize(index + 1, 0);
            }
            let begun = log.count() as u32;
            for v in health.volumes() {
                let ended = at_end || v.volume < begun;
                if v.volume > self.0[index] && ended {
                    self.0[index] = v.volume;
                    out.write(&Record::Health(HealthEntry {
                        endpoint: format!("{flag} {}", log.name),
                        health: v,
                    }));
                }
            }
        }
    }
}
