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

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use crossbeam_channel::{bounded, never, select, tick, unbounded};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1};
use signal_hook::iterator::Signals;

use crate::base::console::say;
use crate::base::file_id::Identity;
use crate::config::{Config, ConfigError, InputSpec};
use crate::exit::{Error, Exit, FAILURE, SUCCESS};
use crate::hash::{self, Digests};
use crate::observe::summary::{status_line, Summary};
use crate::observe::{self, Observers};
use crate::pipeline::events::Events;
use crate::pipeline::watchdog::Watchdog;
use crate::pipeline::watermark::Watermarks;
use crate::pipeline::{Params, Running};
use crate::sink::{self, OpenError, Sink};
use crate::source::{self, Source};

/// How long a stopped writer may take to finish its block and close.
const STOP_GRACE: Duration = Duration::from_secs(2);
/// How often the watchdog looks at the counters.
const WATCHDOG_TICK: Duration = Duration::from_millis(250);

/// Runs the buffer as configured. Returns how the process should end.
pub fn run(config: &Config) -> Result<Exit, Error> {
    // Signals first: opening a FIFO or a device can block, and a SIGUSR1
    // sent meanwhile must not kill us.
    let mut watched = stop_signals();
    watched.push(SIGUSR1);
    let mut signals = Signals::new(watched).context("cannot install signal handlers")?;
    let signal_handle = signals.handle();
    let (sig_tx, sig_rx) = unbounded();
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                if sig_tx.send(sig).is_err() {
                    break;
                }
            }
        })
        .context("cannot start the signal thread")?;
    // The observers' files next, so that a bad path is refused before any
    // data moves.
    let files = observe::open_files(config)?;

    // Open in a helper thread, so that signals are answered while an open
    // blocks. Only this thread starts the pipeline, below.
    let (open_tx, open_rx) = bounded(1);
    let open_config = config.clone();
    std::thread::Builder::new()
        .name("startup".into())
        .spawn(move || {
            let _ = open_tx.send(open(&open_config));
        })
        .context("cannot start the startup thread")?;
    let started_at = Instant::now();
    let ticks = match config.watchdog {
        Some(_) => tick(WATCHDOG_TICK),
        None => never(),
    };
    let endpoints = loop {
        select! {
            recv(open_rx) -> opened => break opened.expect("the startup thread answers")?,
            recv(ticks) -> _ => {
                // The watchdog covers a start that never finishes too, such
                // as a FIFO whose reader never comes.
                let waited = started_at.elapsed();
                if config.watchdog.is_some_and(|limit| waited >= limit) {
                    say(&format!(
                        "tapebuf: -W/--watchdog: no data moved for {} s: still opening the input and outputs",
                        waited.as_secs()
                    ));
                    crate::rmt::session::end_remote_shells();
                    return Ok(Exit::Code(FAILURE));
                }
            },
            recv(sig_rx) -> sig => match sig {
                Ok(SIGUSR1) => say("tapebuf: status: starting: opening the input and outputs"),
                Ok(sig) => {
                    // The pipeline starts only in this thread, after this
                    // loop, so no byte has been read yet.
                    say(&format!(
                        "tapebuf: interrupted by {} while opening the input and outputs; nothing was read",
                        signal_name(sig)
                    ));
                    crate::rmt::session::end_remote_shells();
                    return Ok(Exit::Signal(sig));
                }
                Err(_) => {}
            },
        }
    };
    let created = endpoints.created.clone();
    let (mut running, digests, high_pct) = start(config, endpoints)?;
    let stats = Arc::clone(running.stats());
    let observers = Observers::start(config, files, &stats, high_pct);

    // A signal that came while the ring was allocated waits in `sig_rx`
    // and is answered at once here, with the pipeline running.
    let mut interrupted: Option<i32> = None;
    let mut stalled: Option<String> = None;
    let mut watchdog = config
        .watchdog
        .map(|limit| Watchdog::new(limit, Instant::now()));
    loop {
        select! {
            recv(running.done()) -> _ => break,
            recv(ticks) -> _ => {
                if let Some(why) = watchdog
                    .as_mut()
                    .and_then(|w| w.check(&stats.snapshot(), Instant::now()))
                {
                    stalled = Some(why);
                    break;
                }
            },
            recv(sig_rx) -> sig => match sig {
                Ok(SIGUSR1) => observers.console().say(&status_line(&stats)),
                Ok(sig) => {
                    interrupted = Some(sig);
                    break;
                }
                Err(_) => break,
            },
        }
    }
    let grace = if interrupted.is_some() || stalled.is_some() {
        running.stop();
        Some(STOP_GRACE)
    } else {
        None
    };
    running.wait(grace);
    // A remote shell whose server hangs must not outlive the run.
    crate::rmt::session::end_remote_shells();
    signal_handle.close();

    let summary = Summary::collect(&stats, interrupted.map(signal_name), stalled);
    let observers_ok = observers.finish(&summary);
    let digests_ok = report_digests(config, &digests, summary.is_clean());
    report(config, &summary);
    if !summary.is_clean() && summary.snapshot.read_bytes == 0 {
        remove_empty(&created);
    }
    Ok(match interrupted {
        Some(sig) => Exit::Signal(sig),
        None if summary.is_clean() && digests_ok && observers_ok => Exit::Code(SUCCESS),
        None => Exit::Code(FAILURE),
    })
}

/// Prints the `--hash` digests (unless -q with --hash-file) and writes
/// `--hash-file` for a clean run. False if the file could not be written.
fn report_digests(config: &Config, digests: &Digests, clean: bool) -> bool {
    if config.hashes.is_empty() {
        return true;
    }
    if !config.quiet || config.hash_file.is_none() || !clean {
        for line in digests.lines(clean) {
            say(&line);
        }
    }
    let Some(path) = &config.hash_file else {
        return true;
    };
    let text = match digests.file_text(&config.hashed_stream_name()) {
        Some(text) if clean => text,
        _ => {
            say(&format!(
                "tapebuf: --hash-file {}: not written, because the run failed",
                path.display()
            ));
            return true;
        }
    };
    match std::fs::write(path, text) {
        Ok(()) => true,
        Err(e) => {
            say(&format!(
                "tapebuf: --hash-file {}: cannot write: {e}",
                path.display()
            ));
            false
        }
    }
}

/// The opened input and outputs.
struct Endpoints {
    source: Box<dyn Source>,
    sinks: Vec<Box<dyn Sink>>,
    /// Output files this run created.
    created: Vec<PathBuf>,
}

/// Opens the input and the outputs. This may block (a FIFO, a remote
/// shell), so it runs in the startup thread; it reads no data.
fn open(config: &Config) -> Result<Endpoints, Error> {
    let source = source::open(config)?;
    let input_is_tape = source.is_tape();
    let input = match &config.input {
        InputSpec::Stdin => Identity::of_fd(std::io::stdin()),
        InputSpec::File(path) => Identity::of_path(path).ok().flatten(),
        InputSpec::Listen(_) | InputSpec::Remote(_) => None,
    };
    let opened = sink::open_all(config, input, input_is_tape).map_err(|e| match e {
        OpenError::Io(e) => Error::Runtime(e),
        OpenError::Refused(e) => Error::Usage(e),
        refusal => Error::Usage(ConfigError::new("-o/--output", refusal.to_string())),
    })?;
    Ok(Endpoints {
        source,
        sinks: opened.sinks,
        created: opened.created,
    })
}

/// Allocates the ring and starts the pipeline on the opened endpoints,
/// with a tap for each `--hash`. Also returns the high watermark in force.
fn start(config: &Config, endpoints: Endpoints) -> Result<(Running, Digests, u8), Error> {
    let tape_output = endpoints.sinks.iter().any(|s| s.is_tape());
    let high_pct = config.high_pct_for(tape_output);
    let params = Params {
        blocks: config.blocks,
        block_bytes: config.block_bytes,
        lock_memory: config.lock_memory,
        marks: Watermarks::new(config.blocks, high_pct, config.low_pct),
        input_rate_bytes_per_s: config.input_rate_bytes_per_s,
        output_rate_bytes_per_s: config.output_rate_bytes_per_s,
        pace: config.pace_for(tape_output),
        pad: config.pad,
        events: Events::default(),
    };
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
            say(&format!(
                "tapebuf: -o {}: removed the empty file, since no byte arrived",
                path.display()
            ));
        }
    }
}

/// Prints the errors and the summary line. With -q a clean run prints
/// nothing, but a run that lost data still prints its summary.
fn report(config: &Config, summary: &Summary) {
    if let Some(e) = &summary.input_error {
        say(&format!("tapebuf: {e}"));
    }
    if let Some(why) = &summary.stalled {
        say(&format!("tapebuf: {why}"));
    }
    for f in &summary.failed_outputs {
        say(&format!("tapebuf: {f}"));
    }
    if !config.quiet || !summary.is_clean() {
        say(&summary.line());
    }
}

/// The signals that stop a run or a probe: SIGINT, SIGTERM, and SIGHUP
/// unless it was ignored at start, as under `nohup`, where it must stay so.
pub(crate) fn stop_signals() -> Vec<i32> {
    let mut stops = vec![SIGINT, SIGTERM];
    if !ignored(SIGHUP) {
        stops.push(SIGHUP);
    }
    stops
}

/// True when the signal's disposition is to be ignored, as `nohup` leaves
/// SIGHUP.
pub(crate) fn ignored(sig: i32) -> bool {
    // SAFETY: sigaction with a null new action only reads the current one
    // into `old`, which is a valid, zeroed struct owned here.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

/// "SIGINT", "SIGTERM" or "SIGHUP", for the interrupted message.
pub(crate) fn signal_name(sig: i32) -> &'static str {
    match sig {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// The one `tapebuf: ...` line for a command-line error, or None when
/// clap is answering --help or --version, which is not an error.
pub fn usage_line(e: &clap::Error) -> Option<String> {
    usage_text(e, "tapebuf").map(|text| format!("tapebuf: {text}"))
}

/// Parses the words after `tapebuf NAME` as that subcommand's command line.
/// Err is the exit status once clap has answered --help or --version (0,
/// on stdout) or a usage error has been said as `tapebuf: NAME: ...` (2).
pub fn parse_subcommand<T: clap::Parser>(
    name: &str,
    args: Vec<std::ffi::OsString>,
) -> Result<T, i32> {
    let command = format!("tapebuf {name}");
    let words = std::iter::once(std::ffi::OsString::from(&command)).chain(args);
    T::try_parse_from(words).map_err(|e| match usage_text(&e, &command) {
        Some(text) => {
            crate::base::console::say(&format!("tapebuf: {name}: {text}"));
            crate::exit::USAGE
        }
        None => {
            let _ = e.print();
            crate::exit::SUCCESS
        }
    })
}

/// What clap says is wrong, in one line that points to `command --help`:
/// clap's first line, then what it lists below it (the missing arguments,
/// an invalid choice's valid values, a suggestion such as "a similar
/// argument exists: '--output'"); None for --help or --version.
pub fn usage_text(e: &clap::Error, command: &str) -> Option<String> {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return None;
    }
    let text = e.to_string();
    let mut details = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty());
    let first = details.next().unwrap_or("invalid command line");
    let mut line = first.trim_start_matches("error: ").to_string();
    let mut listed = Vec::new();
    let mut notes = String::new();
    for detail in details {
        if let Some(values) = detail
            .strip_prefix("[possible values: ")
            .and_then(|v| v.strip_suffix(']'))
        {
            notes.push_str(&format!("; one of {values}"));
        } else if let Some(tip) = detail.strip_prefix("tip: ") {
            notes.push_str(&format!("; {tip}"));
        } else {
            listed.push(detail);
        }
    }
    if !listed.is_empty() {
        // The missing arguments, listed one per line after a colon.
        line = format!("{} {}", line, listed.join(", "));
    }
    Some(format!("{line}{notes} (see '{command} --help')"))
}
