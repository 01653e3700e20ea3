//! One probe from start to end: parse, confirm, open the target, watch for
//! signals, sweep, clean up, print, and say how the process should end.
//!
//! SIGINT, SIGTERM and SIGHUP (unless `nohup` left it ignored) only set a
//! flag, which the sweep reads between blocks; the probe then cleans up
//! (removes its file, rewinds the tape) and ends as killed by that signal.
//! Those handlers are installed after the confirmation, so Ctrl-C at the
//! prompt simply ends the program, and before the target is opened, so
//! nothing the probe creates can be left behind. SIGUSR1 prints a status
//! line on stderr from a thread of its own and the sweep goes on, as in the
//! main mode; its handler comes first of all, so that it cannot kill a
//! probe waiting at its prompt. The invariant: `cleanup` runs exactly once
//! after the target was opened, whatever happened. A stop signal also
//! ends every remote shell at once (`rmt::shell_guard`), so a probe
//! waiting on a server that stalls is not stuck, and no remote shell
//! outlives the probe whichever way it ends.

use std::io::{IsTerminal, Write};
use std::os::unix::fs::FileTypeExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{anyhow, Context};
use signal_hook::consts::SIGUSR1;
use signal_hook::iterator::Signals;

use super::file::{FileOpenError, FileTarget};
use super::measure::RealClock;
use super::remote::RemoteTarget;
use super::schema::ProbeResults;
use super::settings::{ProbeConfig, TargetSpec};
use super::sweep::{sweep, Progress, SweepError};
use super::table;
use super::tape::TapeTarget;
use super::target::ProbeTarget;
use crate::base::console::{message, say};
use crate::base::errors::ConfigError;
use crate::base::exit::{Exit, FAILURE, SUCCESS, USAGE};
use crate::base::path_registry::{Registry, Role};
use crate::base::size::{size_flag, Rate};
use crate::base::sync::lock;
use crate::cli::command::Command;
use crate::cli::probe::ProbeCli;
use crate::error::Error;
use crate::rmt::shell_guard::{AfterSignal, ShellGuard};

/// `tapebuf probe`.
pub struct Probe;

impl Command for Probe {
    const NAME: &'static str = "probe";
    type Args = ProbeCli;

    fn run(cli: ProbeCli) -> Exit {
        let what = format!("TARGET {}", cli.target.display());
        if let Err(e) = Registry::one_path_and_stdout(&what, &cli.target, Role::Write) {
            say(&message!("probe: {e}"));
            return Exit::Code(USAGE);
        }
        let outcome = ProbeConfig::from_cli(&cli, |name| std::env::var(name).ok())
            .map_err(Error::from)
            .and_then(|config| probe(&config));
        match outcome {
            Ok(exit) => exit,
            Err(e) => {
                say(&message!("probe: {e}"));
                Exit::Code(e.exit_code())
            }
        }
    }
}

/// The whole probe, once the command line is known to be good.
pub fn probe(config: &ProbeConfig) -> Result<Exit, Error> {
    // SIGUSR1 first: `pkill -USR1 -x tapebuf` must not kill a probe that
    // waits at its prompt either.
    let status = Arc::new(Status::new(config));
    let status_signals = status_on_sigusr1(&status)?;
    confirm(config)?;
    let stop = Arc::new(AtomicUsize::new(0));
    let mut handlers = Vec::new();
    for sig in crate::base::signals::stop_signals() {
        let id = signal_hook::flag::register_usize(sig, Arc::clone(&stop), sig as usize)
            .context("cannot install signal handlers")?;
        handlers.push(id);
    }
    // A remote shell must not outlive the probe: a stop signal ends every
    // one at once, which unblocks a wait for a server that stalls, and so
    // does every way out of this function.
    let guard = ShellGuard::install("probe", AfterSignal::Return)?;
    let mut target = match open_or_interrupted(config, &guard)? {
        Ok(target) => target,
        Err(exit) => return Ok(exit),
    };
    let chatty = std::io::stderr().is_terminal();
    let stopped = || match stop.load(Ordering::Relaxed) {
        0 => None,
        sig => Some(sig as i32),
    };
    let mut progress = |p: Progress<'_>| {
        let line = progress_line(&p);
        if chatty {
            say(&message!("probe: {line}"));
        }
        status.finished(line);
    };
    let outcome = sweep(
        target.as_mut(),
        &config.plan,
        &RealClock::new(),
        &stopped,
        &mut progress,
    );
    // A remote call that failed because the signal ended its shell is the
    // signal's doing.
    let outcome = outcome.map_err(|e| match guard.caught() {
        Some(sig) => SweepError::Interrupted(sig),
        None => e,
    });
    let cleaned = target.cleanup();
    for id in handlers {
        signal_hook::low_level::unregister(id);
    }
    status_signals.close();
    let cleaned_note = match &cleaned {
        Ok(done) if !done.is_empty() => format!("; {done}"),
        Ok(_) => String::new(),
        Err(e) => format!("; and cleaning up failed: {e}"),
    };
    let done = match outcome {
        Err(SweepError::Interrupted(sig)) => {
            say(&message!(
                "probe: {}: interrupted by {}{cleaned_note}",
                config.label,
                crate::base::signals::signal_name(sig)
            ));
            return Ok(Exit::Signal(sig));
        }
        Err(e) => return Err(anyhow!("{}: {e}{cleaned_note}", config.label).into()),
        Ok(done) => done,
    };
    finish(config, target.as_ref(), &done, cleaned)
}

/// Prints the results and says how the finished probe ends: 1 for a
/// read-back that differed, every size refused, or a failed clean-up.
fn finish(
    config: &ProbeConfig,
    target: &dyn ProbeTarget,
    done: &super::sweep::Sweep,
    cleaned: std::io::Result<String>,
) -> Result<Exit, Error> {
    let results = done.results(target, &config.plan, config.direct);
    print_results(config, &results, target.method())?;
    let mut code = SUCCESS;
    for m in done.mismatches() {
        say(&message!("probe: {}: {m}", config.label));
        code = FAILURE;
    }
    if results.results.iter().all(|r| r.refused.is_some()) {
        say(&message!(
            "probe: {}: the drive or its controller refused every size; probe smaller --sizes (256k works nearly everywhere)",
            config.label
        ));
        code = FAILURE;
    }
    if let Err(e) = cleaned {
        say(&message!("probe: {}: {e}", config.label));
        code = FAILURE;
    }
    Ok(Exit::Code(code))
}

/// Opens the target; Err inside when a stop signal ended its remote
/// shell while it opened (said here).
fn open_or_interrupted(
    config: &ProbeConfig,
    guard: &ShellGuard,
) -> Result<Result<Box<dyn ProbeTarget>, Exit>, Error> {
    match open_target(config) {
        Ok(target) => Ok(Ok(target)),
        Err(e) => {
            let Some(sig) = guard.caught() else {
                return Err(e);
            };
            say(&message!(
                "probe: {}: interrupted by {} while opening",
                config.label,
                crate::base::signals::signal_name(sig)
            ));
            Ok(Err(Exit::Signal(sig)))
        }
    }
}

/// One run's line: its sizes and rates, and whether the read-back differed.
fn progress_line(p: &Progress<'_>) -> String {
    format!(
        "run {}/{}, {}: write {}, read {}{}",
        p.run,
        p.runs,
        size_flag(p.block_bytes),
        Rate(p.write.rate_bytes_per_s()),
        Rate(p.read.rate_bytes_per_s()),
        if p.mismatch.is_some() {
            ", READ-BACK DIFFERS"
        } else {
            ""
        }
    )
}

/// The results table on stdout (or JSON on stdout and the table on
/// stderr).
fn print_results(
    config: &ProbeConfig,
    results: &ProbeResults,
    method: String,
) -> Result<(), Error> {
    let mut lines = table::lines_of(results);
    lines.insert(1, format!("method: {method}"));
    if config.json {
        let json = serde_json::to_string(results).context("cannot write the results as JSON")?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{json}")
            .and_then(|()| out.flush())
            .context("cannot write the results to standard output")?;
        lines.iter().for_each(|l| say(l));
    } else {
        let mut out = std::io::stdout().lock();
        lines
            .iter()
            .try_for_each(|l| writeln!(out, "{l}"))
            .and_then(|()| out.flush())
            .context("cannot write the results to standard output")?;
    }
    Ok(())
}

/// What SIGUSR1 reports: how far the sweep has come.
struct Status {
    label: String,
    total_runs: u64,
    started: Instant,
    /// Runs finished so far, and the progress line of the last one.
    done: Mutex<(u64, Option<String>)>,
}

impl Status {
    fn new(config: &ProbeConfig) -> Status {
        Status {
            label: config.label.clone(),
            total_runs: config.plan.sizes.len() as u64 * u64::from(config.plan.runs),
            started: Instant::now(),
            done: Mutex::new((0, None)),
        }
    }

    fn finished(&self, line: String) {
        let mut done = lock(&self.done);
        done.0 += 1;
        done.1 = Some(line);
    }

    /// `tapebuf: probe: status: LABEL: 2 of 12 runs done after 3 s; last: ...`
    fn line(&self) -> String {
        let done = lock(&self.done);
        let last = match &done.1 {
            Some(line) => format!("; last: {line}"),
            None => String::new(),
        };
        message!(
            "probe: status: {}: {} of {} runs done after {} s{last}",
            self.label,
            done.0,
            self.total_runs,
            self.started.elapsed().as_secs()
        )
    }
}

/// Prints `status`'s line on each SIGUSR1, from a thread of its own, until
/// the returned handle is closed.
fn status_on_sigusr1(status: &Arc<Status>) -> Result<signal_hook::iterator::Handle, Error> {
    let mut signals = Signals::new([SIGUSR1]).context("cannot install signal handlers")?;
    let handle = signals.handle();
    let status = Arc::clone(status);
    crate::base::thread::spawn("status", move || {
        for _ in signals.forever() {
            say(&status.line());
        }
    })
    .context("cannot start the signal thread")?;
    Ok(handle)
}

/// A device or remote target is overwritten only with `--yes`, or a "yes"
/// typed at the terminal.
fn confirm(config: &ProbeConfig) -> Result<(), Error> {
    if config.yes || !config.target.needs_confirmation() {
        return Ok(());
    }
    let label = &config.label;
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        crate::base::console::ask(&message!(
            "probe: this overwrites everything on {label}; type yes to go on: "
        ));
        let mut answer = String::new();
        std::io::stdin()
            .read_line(&mut answer)
            .context("cannot read the answer")?;
        if answer.trim() == "yes" {
            return Ok(());
        }
        return Err(ConfigError::new(label.clone(), "not confirmed; nothing was written").into());
    }
    let what = match config.target {
        TargetSpec::Remote(_) => "a remote target",
        _ => "a device",
    };
    Err(ConfigError::new(
        label.clone(),
        format!(
            "is {what}: the probe overwrites everything on it; give --yes to go on \
             (there is no terminal to ask on)"
        ),
    )
    .into())
}

fn open_target(config: &ProbeConfig) -> Result<Box<dyn ProbeTarget>, Error> {
    let label = config.label.as_str();
    let direct = config.direct;
    let file = |opened: Result<FileTarget, FileOpenError>| -> Result<Box<dyn ProbeTarget>, Error> {
        match opened {
            Ok(t) => Ok(Box::new(t)),
            Err(e @ FileOpenError::DirectRefused { .. }) => {
                Err(ConfigError::new("--direct", e.to_string()).into())
            }
            Err(e) => Err(anyhow!(e).into()),
        }
    };
    match &config.target {
        TargetSpec::NewFile(path) => file(FileTarget::create(path, label, direct)),
        TargetSpec::InDirectory(dir) => file(FileTarget::create_in(dir, label, direct)),
        TargetSpec::ExistingFile(path) => file(FileTarget::existing(path, label, direct)),
        TargetSpec::Device(path) => {
            let is_char = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device());
            if is_char {
                if let Some(tape) = TapeTarget::local(path, label)
                    .with_context(|| format!("{label}: cannot open"))?
                {
                    return Ok(Box::new(tape));
                }
            }
            let device = FileTarget::device(path, label, direct);
            if let Ok(d) = &device {
                if let Some(bytes) = d.device_bytes() {
                    if bytes < config.plan.stream_bytes {
                        return Err(ConfigError::new(
                            "--size",
                            format!(
                                "{} bytes is more than {label} holds ({bytes} bytes)",
                                config.plan.stream_bytes
                            ),
                        )
                        .into());
                    }
                }
            }
            file(device)
        }
        TargetSpec::Remote(name) => {
            let settings = config
                .rmt
                .as_ref()
                .expect("a remote target has rmt settings");
            let remote = RemoteTarget::open(name, settings)
                .with_context(|| format!("{label}: cannot open over rmt"))?;
            Ok(Box::new(remote))
        }
    }
}
