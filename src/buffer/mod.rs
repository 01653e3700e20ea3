//! One run of the program: open the endpoints, start the pipeline, watch
//! for signals, and end with the summary and the exit status.
//!
//! Signal handlers come first, and the endpoints are opened in a helper
//! thread, so that a signal is answered even while opening a FIFO blocks.
//! The helper only opens: the main thread starts the pipeline, so no byte
//! moves before the main thread knows the run has begun, and a signal that
//! comes while opening can truly say that nothing was read. Then the main
//! thread is the observer. It waits on a `select!` over the
//! pipeline's end and a signal channel, so signals never touch the data
//! path: SIGUSR1 prints a status line; SIGINT, SIGTERM and SIGHUP (a
//! dropped ssh session, a cron parent gone) stop the run, wait
//! a short grace for the writer to finish its current block, print the
//! summary of what was committed, and end with the signal. With `-W`, a
//! timer lets the watchdog end a run in which nothing moves. The progress
//! bar, status records and stats file run beside it (`observe`); they are
//! finished, and the bar cleared, before the summary is printed.

mod digests;
mod manifest;
mod open;
mod verbose;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use crossbeam_channel::{bounded, never, select, tick, unbounded, Receiver};
use signal_hook::consts::SIGUSR1;
use signal_hook::iterator::{Handle, Signals};

use crate::base::console::{self, message, say};
use crate::base::exit::{Exit, DRIVE_ALERT, FAILURE, SUCCESS};
use crate::base::signals::{signal_name, stop_signals};
use crate::config::Config;
use crate::error::Error;
use crate::hash::{self, Digests};
use crate::observe::summary::{status_line, Summary};
use crate::observe::{self, Observers, RunShape};
use crate::pipeline::stats::Stats;
use crate::pipeline::watchdog::Watchdog;
use crate::pipeline::Running;
use digests::report_digests;
use open::open;
pub(crate) use open::Endpoints;

/// How long a stopped writer may take to finish its block and close.
pub(crate) const STOP_GRACE: Duration = Duration::from_secs(2);
/// How often the watchdog looks at the counters.
const WATCHDOG_TICK: Duration = Duration::from_millis(250);

/// Runs the buffer as configured. Returns how the process should end.
pub fn run(config: &Config) -> Result<Exit, Error> {
    // Signals first: opening a FIFO or a device can block, and a SIGUSR1
    // sent meanwhile must not kill us.
    let (sig_rx, signal_handle) = watch_signals()?;
    // The observers' files next, so that a bad path is refused before any
    // data moves.
    let files = observe::open_files(&config.observe)?;
    if config.print_pid {
        say(&message!("PID is {}", std::process::id()));
    }
    let ticks = watchdog_ticks(config);
    let endpoints = match open_answering_signals(config, &sig_rx, &ticks)? {
        Ok(endpoints) => endpoints,
        Err(exit) => return Ok(exit),
    };
    let (created, ledgers) = (endpoints.created.clone(), endpoints.ledgers());
    let (running, digests, high_pct) = start(config, endpoints)?;
    let stats = Arc::clone(running.stats());
    if config.observe.verbose {
        say(&verbose::start_line(config, high_pct));
    }
    let observers = Observers::start(&config.observe, shape(config, high_pct), files, &stats);

    let (interrupted, stalled) = see_through(config, running, &sig_rx, &ticks);
    // A remote shell whose server hangs must not outlive the run.
    crate::base::child_groups::end_children();
    signal_handle.close();

    let summary = Summary::collect(&stats, interrupted.map(signal_name), stalled)
        .verbose(config.observe.verbose)
        .with_catalog(manifest::finish_catalog(&ledgers));
    let observers_ok = observers.finish(&summary);
    let closed_ok = close(config, &summary, &digests, &ledgers, &created);
    let logged_ok = console::log_ok();
    Ok(match interrupted {
        Some(sig) => Exit::Signal(sig),
        None if summary.is_clean() && closed_ok && observers_ok && logged_ok => {
            Exit::Code(match summary.drive_alert() {
                true => DRIVE_ALERT,
                false => SUCCESS,
            })
        }
        None => Exit::Code(FAILURE),
    })
}

/// The ticks the watchdog looks at the counters on: none without `-W`.
pub(crate) fn watchdog_ticks(config: &Config) -> Receiver<Instant> {
    match config.watchdog {
        Some(_) => tick(WATCHDOG_TICK),
        None => never(),
    }
}

/// Watches a started run to its end (`watch`), stopping it on a signal or
/// the watchdog and giving its writer `STOP_GRACE`, and waits for it.
/// Returns the stopping signal, or why the watchdog stopped it.
pub(crate) fn see_through(
    config: &Config,
    mut running: Running,
    sig_rx: &Receiver<i32>,
    ticks: &Receiver<Instant>,
) -> (Option<i32>, Option<String>) {
    let stats = Arc::clone(running.stats());
    let (interrupted, stalled) = watch(config, &running, &stats, sig_rx, ticks);
    let grace = (interrupted.is_some() || stalled.is_some()).then(|| {
        running.stop();
        STOP_GRACE
    });
    running.wait(grace);
    (interrupted, stalled)
}

/// The end of a run once its summary is made: the digests, the summary
/// line and its errors, `--verify` and the manifest, and the files of a
/// run that never got a byte removed. False when a digest file, a
/// read-back or the manifest failed.
pub(crate) fn close(
    config: &Config,
    summary: &Summary,
    digests: &Digests,
    ledgers: &[Arc<crate::manifest::Ledger>],
    created: &[PathBuf],
) -> bool {
    let digests_ok = report_digests(config, digests, summary.is_clean());
    report(config, summary);
    let recorded_ok = manifest::finish_recording(config, ledgers, summary);
    if !summary.is_clean() && summary.snapshot.read_bytes == 0 {
        remove_empty(created);
    }
    digests_ok && recorded_ok
}

/// Starts a thread that turns the stop signals and SIGUSR1 into messages
/// on a channel; the handle closes it.
pub(crate) fn watch_signals() -> Result<(Receiver<i32>, Handle), Error> {
    let mut watched = stop_signals();
    watched.push(SIGUSR1);
    let mut signals = Signals::new(watched).context("cannot install signal handlers")?;
    let handle = signals.handle();
    let (sig_tx, sig_rx) = unbounded();
    crate::base::thread::spawn("signals", move || {
        for sig in signals.forever() {
            if sig_tx.send(sig).is_err() {
                break;
            }
        }
    })
    .context("cannot start the signal thread")?;
    Ok((sig_rx, handle))
}

/// Opens the endpoints in a helper thread, so that signals are answered
/// while an open blocks; only the calling thread starts the pipeline.
/// Err inside: the run ended while opening (a signal, the watchdog).
fn open_answering_signals(
    config: &Config,
    sig_rx: &Receiver<i32>,
    ticks: &Receiver<Instant>,
) -> Result<Result<Endpoints, Exit>, Error> {
    let (open_tx, open_rx) = bounded(1);
    let open_config = config.clone();
    crate::base::thread::spawn("startup", move || {
        let _ = open_tx.send(open(&open_config));
    })
    .context("cannot start the startup thread")?;
    let started_at = Instant::now();
    loop {
        select! {
            recv(open_rx) -> opened => return opened.expect("the startup thread answers").map(Ok),
            recv(ticks) -> _ => {
                // The watchdog covers a start that never finishes too, such
                // as a FIFO whose reader never comes.
                let waited = started_at.elapsed();
                if config.watchdog.is_some_and(|limit| waited >= limit) {
                    say(&message!(
                        "-W/--watchdog: no data moved for {} s: still opening the input and outputs",
                        waited.as_secs()
                    ));
                    crate::base::child_groups::end_children();
                    return Ok(Err(Exit::Code(FAILURE)));
                }
            },
            recv(sig_rx) -> sig => match sig {
                Ok(SIGUSR1) => say(&message!("status: starting: opening the input and outputs")),
                Ok(sig) => {
                    // The pipeline starts only in this thread, after this
                    // loop, so no byte has been read yet.
                    say(&message!(
                        "interrupted by {} while opening the input and outputs; nothing was read",
                        signal_name(sig)
                    ));
                    crate::base::child_groups::end_children();
                    return Ok(Err(Exit::Signal(sig)));
                }
                Err(_) => {}
            },
        }
    }
}

/// The run as the observers describe it.
fn shape(config: &Config, high_pct: u8) -> RunShape {
    RunShape {
        block_bytes: config.pipeline.block_bytes as u64,
        ring_bytes: config.pipeline.memory_bytes(),
        high_pct,
        low_pct: config.pipeline.low_pct,
        input_bytes: config.input_file_bytes(),
    }
}

/// Waits for the pipeline to end, answering signals and the watchdog. A
/// signal that came while the ring was allocated waits in `sig_rx` and is
/// answered at once here. Returns the stopping signal, or why the watchdog
/// stopped the run.
fn watch(
    config: &Config,
    running: &Running,
    stats: &Stats,
    sig_rx: &Receiver<i32>,
    ticks: &Receiver<Instant>,
) -> (Option<i32>, Option<String>) {
    let mut watchdog = config
        .watchdog
        .map(|limit| Watchdog::new(limit, Instant::now()));
    loop {
        select! {
            recv(running.done()) -> _ => return (None, None),
            recv(ticks) -> _ => {
                if let Some(why) = watchdog
                    .as_mut()
                    .and_then(|w| w.check(&stats.snapshot(), Instant::now()))
                {
                    return (None, Some(why));
                }
            },
            recv(sig_rx) -> sig => match sig {
                Ok(SIGUSR1) => say(&status_line(stats)),
                Ok(sig) => {
                    // A producer or consumer gets it as in a shell pipeline.
                    crate::base::child_groups::signal_children(sig);
                    return (Some(sig), None);
                }
                Err(_) => return (None, None),
            },
        }
    }
}

/// Allocates the ring and starts the pipeline on the opened endpoints,
/// with a tap for each `--hash`. Also returns the high watermark in force.
pub(crate) fn start(
    config: &Config,
    endpoints: Endpoints,
) -> Result<(Running, Digests, u8), Error> {
    let tape_output = endpoints.sinks.iter().any(|s| s.traits().is_tape());
    // The engine resolves the same watermark from the same outputs.
    let high_pct = config.pipeline.high_pct_for(tape_output);
    let params = config.pipeline.clone();
    let (taps, digests) = hash::taps(&config.hashes);
    let running = Running::start_with_taps(endpoints.source, endpoints.sinks, taps, params)
        .map_err(anyhow::Error::from)?;
    Ok((running, digests, high_pct))
}

/// Removes the files this run created that are still empty, after a run
/// that failed before its first byte (a receiver whose sender never came):
/// an empty file left behind would look like an empty backup.
fn remove_empty(created: &[PathBuf]) {
    for path in created {
        let empty = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0);
        if empty && std::fs::remove_file(path).is_ok() {
            // Its trailer's marker goes with it: a marker beside nothing
            // would describe a volume that is not there.
            let _ = crate::volume::trailer_marker::remove_markers(path);
            say(&message!(
                "-o {}: removed the empty file, since no byte arrived",
                path.display()
            ));
        }
    }
}

/// Prints the errors and the summary line. With -q a clean run prints
/// nothing, but a run that lost data still prints its summary.
fn report(config: &Config, summary: &Summary) {
    if let Some(e) = &summary.input_error {
        say(&message!("{e}"));
    }
    if let Some(why) = &summary.stalled {
        say(&message!("{why}"));
    }
    for f in &summary.failed_outputs {
        say(&message!("{f}"));
    }
    // The -l file gets the summary even with -q, unless mbuffer's -Q;
    // stderr gets it with -q too when something went wrong, or a drive
    // raised a critical flag (exit status 3 must not come without words).
    let line = summary.line();
    match (
        !config.quiet() || !summary.is_clean() || summary.drive_alert(),
        config.observe.log_summary,
    ) {
        (true, true) => say(&line),
        (true, false) => console::say_unlogged(&line),
        (false, true) => console::log(&line),
        (false, false) => {}
    }
}
