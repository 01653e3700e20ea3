//! The observers of a run: the live progress bar, the periodic status
//! records, the `--stats` timeline, the JSON summary, and the ring clock
//! (the time the ring spent near full and near empty, kept for every run).
//!
//! Each live observer is its own thread that reads the atomic counters in
//! `Stats` on a timer; none of them ever makes the reader or the writer
//! wait, and a slow terminal or disk only delays its own thread. Every
//! line meant for stderr goes through [`crate::base::console`], which the
//! [`Bar`] tells how to clear and redraw itself, so that no line and the
//! progress bar garble each other.

mod catalog_clause;
pub mod drive_health;
mod library_facts;
pub mod progress;
pub mod progress_line;
pub mod record;
pub mod ring_time;
pub mod settings;
pub mod stats_log;
pub mod status_log;
pub mod summary;
mod volume_list;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use anyhow::Context;
use crossbeam_channel::{bounded, Sender};
use indicatif::ProgressBar;

use crate::base::console::{self, message, say};
use crate::base::create;
use crate::base::sync::lock;
use crate::pipeline::stats::Stats;
use record::{Start, SummaryRecord, SCHEMA, SCHEMA_VERSION};
use settings::ObserveSettings;
use summary::Summary;

/// True while a change waits for a drive, rather than for a person or a
/// command: the bar can stay up.
pub fn waiting_for_a_drive(stats: &Stats) -> bool {
    stats.volume_logs().any(|v| v.waiting_for().is_some())
}

/// The progress bar's hold on stderr: while it is shown, every line said
/// through [`crate::base::console`] is printed with the bar cleared and the
/// bar is redrawn below it.
#[derive(Debug, Clone, Default)]
pub struct Bar {
    bar: Arc<Mutex<Option<ProgressBar>>>,
}

impl Bar {
    /// Shows `bar`, or clears and removes the one shown.
    fn set_bar(&self, bar: Option<ProgressBar>) {
        let mut slot = lock(&self.bar);
        if let Some(old) = slot.take() {
            console::set_around(None);
            old.finish_and_clear();
        }
        if let Some(bar) = &bar {
            let bar = bar.clone();
            console::set_around(Some(Arc::new(move |write: &mut dyn FnMut()| {
                bar.suspend(write)
            })));
        }
        *slot = bar;
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar)) {
        if let Some(bar) = &*lock(&self.bar) {
            f(bar);
        }
    }
}

/// The files the observers write, opened before any data moves so that a
/// bad path is refused at once.
pub struct Files {
    /// `-l` is open: the console copies every line to it.
    log: bool,
    stats: Option<(PathBuf, File)>,
}

/// Opens (creates or truncates) `--stats`, and opens `--log` for appending
/// and hands it to the console, which from then on copies every line said
/// to it.
pub fn open_files(o: &ObserveSettings) -> anyhow::Result<Files> {
    if let Some(path) = &o.log {
        let file = create::append(path, create::RECORD_MODE)
            .with_context(|| format!("-l/--log {}: cannot open", path.display()))?;
        console::log_to(path.clone(), file);
    }
    let stats = match &o.stats {
        Some((path, _)) => Some((
            path.clone(),
            create::open_output(path, create::Existing::Truncate, create::RECORD_MODE)
                .with_context(|| format!("--stats {}: cannot create", path.display()))?,
        )),
        None => None,
    };
    Ok(Files {
        log: o.log.is_some(),
        stats,
    })
}

/// The observer threads of one run.
pub struct Observers {
    bar: Bar,
    /// Dropped to stop the progress and status threads.
    stop: Option<Sender<()>>,
    threads: Vec<JoinHandle<bool>>,
    /// Takes the summary to the stats thread, which then ends.
    stats_end: Option<(Sender<SummaryRecord>, JoinHandle<bool>)>,
    summary_json: Option<PathBuf>,
    /// Read once more at the end, for how pacing went.
    stats: Arc<Stats>,
}

/// The run as the stats file's first record describes it.
#[derive(Debug, Clone, Copy)]
pub struct RunShape {
    pub block_bytes: u64,
    pub ring_bytes: u64,
    /// The high watermark in force, known once the outputs are open.
    pub high_pct: u8,
    pub low_pct: u8,
    /// The input's size, when it is a regular file.
    pub input_bytes: Option<u64>,
}

impl Observers {
    /// Starts the observers `o` asks for.
    pub fn start(
        o: &ObserveSettings,
        run: RunShape,
        files: Files,
        stats: &Arc<Stats>,
    ) -> Observers {
        let bar_slot = Bar::default();
        let (stop_tx, stop_rx) = bounded::<()>(0);
        let mut threads = vec![ring_time::spawn(Arc::clone(stats), stop_rx.clone())];
        let total_bytes = o.total_bytes.or(run.input_bytes);
        if progress::wanted(o.progress) {
            threads.push(progress::spawn(
                bar_slot.clone(),
                Arc::clone(stats),
                total_bytes,
                o.progress,
                stop_rx.clone(),
            ));
        }
        if let Some(every) = o.status_interval {
            threads.push(status_log::spawn(
                files.log,
                Arc::clone(stats),
                every,
                stop_rx,
            ));
        }
        let stats_end = files.stats.map(|(path, file)| {
            let interval = o.stats.as_ref().map(|s| s.1).unwrap_or_default();
            let start = Start {
                schema: SCHEMA.to_string(),
                version: SCHEMA_VERSION,
                tapebuf: env!("CARGO_PKG_VERSION").to_string(),
                block_bytes: run.block_bytes,
                ring_bytes: run.ring_bytes,
                high_pct: run.high_pct,
                low_pct: run.low_pct,
                total_bytes,
                interval_s: interval.as_secs_f64(),
                pacing: stats.pacing,
                tape_output: Some(stats.tape_output),
            };
            stats_log::spawn(path, file, start, Arc::clone(stats), interval)
        });
        Observers {
            bar: bar_slot,
            stop: Some(stop_tx),
            threads,
            stats_end,
            summary_json: o.summary_json.clone(),
            stats: Arc::clone(stats),
        }
    }

    /// Stops the live observers and clears the bar, then writes the final
    /// stats record and `--summary-json`. False if one of those files
    /// could not be written (each failure is said).
    pub fn finish(mut self, summary: &Summary) -> bool {
        self.stop.take();
        let mut ok = true;
        for t in self.threads.drain(..) {
            ok &= t.join().unwrap_or(false);
        }
        self.bar.set_bar(None);
        let record = SummaryRecord::new(summary).with_pace(self.stats.pace_report().as_ref());
        if let Some((tx, thread)) = self.stats_end.take() {
            let _ = tx.send(record.clone());
            ok &= thread.join().unwrap_or(false);
        }
        if let Some(path) = &self.summary_json {
            ok &= write_summary_json(path, &record);
        }
        ok
    }
}

fn write_summary_json(path: &Path, record: &SummaryRecord) -> bool {
    let text = serde_json::to_string(record).expect("a summary serialises") + "\n";
    match create::write_record(path, text.as_bytes(), create::RECORD_MODE) {
        Ok(()) => true,
        Err(e) => {
            say(&message!(
                "--summary-json {}: cannot write: {e}",
                path.display()
            ));
            false
        }
    }
}
