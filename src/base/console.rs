//! The one way a line reaches the user's terminal: every message, from any
//! thread or subcommand, goes through [`say`].
//!
//! Invariants kept here:
//! - a closed or broken stderr (a cron job whose mail pipe died) never
//!   aborts a backup: write errors are ignored, where `eprintln!` would
//!   panic;
//! - while a progress bar is drawn, a line is printed with the bar cleared
//!   and the bar is redrawn below it, so no line tears the bar. The bar's
//!   owner registers how to do that with [`set_around`]; this module knows
//!   nothing of bars;
//! - with `-l/--log FILE` ([`log_to`]), every line said is appended to FILE
//!   as well, whole, in the order said; a write that fails is said once on
//!   stderr, logging stops, and [`log_ok`] turns false so the run can fail.

use crate::base::sync::lock;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Runs a write with the screen prepared for it (the bar cleared).
pub type Around = Arc<dyn Fn(&mut dyn FnMut()) + Send + Sync>;

static AROUND: Mutex<Option<Around>> = Mutex::new(None);

/// The `-l/--log` file, once a run has opened it.
struct LogFile {
    path: PathBuf,
    file: File,
    /// A write failed: it was said, and nothing more is written.
    failed: bool,
}

static LOG: Mutex<Option<LogFile>> = Mutex::new(None);

/// Every line tapebuf says starts with this.
pub const PREFIX: &str = "tapebuf: ";

/// One message line: [`PREFIX`] and the text, formatted as `format!`
/// does. Every message is made by this macro, so the prefix is written
/// once; [`say`] then prints it.
macro_rules! message {
    ($($arg:tt)*) => {
        format!("{}{}", $crate::base::console::PREFIX, format_args!($($arg)*))
    };
}
pub(crate) use message;

/// Writes one line to stderr, and to the `-l` file if there is one.
pub fn say(line: &str) {
    say_unlogged(line);
    log(line);
}

/// Writes one line to stderr only.
pub fn say_unlogged(line: &str) {
    let line = labelled(line);
    emit(&mut || {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{line}");
    });
}

thread_local! {
    /// What every message this thread says is about (one served stream).
    static LABEL: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// From now on, every message this thread says names `label` after the
/// prefix: `tapebuf: stream 3: ...`. A served stream's thread sets it, so
/// its summary and its errors say whose they are.
pub fn label_thread(label: String) {
    LABEL.with(|l| *l.borrow_mut() = Some(label));
}

/// This thread's label, for a thread it starts (`base::thread`).
pub fn thread_label() -> Option<String> {
    LABEL.with(|l| l.borrow().clone())
}

/// `line` with this thread's label after the prefix, if it has one (and
/// then with the prefix, if it had none).
fn labelled(line: &str) -> std::borrow::Cow<'_, str> {
    LABEL.with(
        |l| match (l.borrow().as_deref(), line.strip_prefix(PREFIX)) {
            (Some(label), Some(rest)) => format!("{PREFIX}{label}: {rest}").into(),
            // A line without the prefix (a digest) still says whose it is.
            (Some(label), None) => format!("{PREFIX}{label}: {line}").into(),
            (None, _) => line.into(),
        },
    )
}

/// From now on, appends every line said to `file` (opened for appending)
/// as well.
pub fn log_to(path: PathBuf, file: File) {
    *lock(&LOG) = Some(LogFile {
        path,
        file,
        failed: false,
    });
}

/// Appends one line to the `-l` file alone, if there is one.
pub fn log(line: &str) {
    let mut slot = lock(&LOG);
    let Some(log) = slot.as_mut().filter(|l| !l.failed) else {
        return;
    };
    if let Err(e) = writeln!(log.file, "{}", labelled(line)) {
        log.failed = true;
        let why = message!("-l/--log {}: cannot write: {e}", log.path.display());
        drop(slot);
        say_unlogged(&why);
    }
}

/// False once a write to the `-l` file has failed.
pub fn log_ok() -> bool {
    lock(&LOG).as_ref().is_none_or(|l| !l.failed)
}

/// Writes a question without ending the line, for a person to answer on
/// the same line.
pub fn ask(text: &str) {
    emit(&mut || {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{text}");
        let _ = err.flush();
    });
}

/// Sets how lines are written while something else draws on the terminal,
/// or (None) that nothing does any more.
pub fn set_around(around: Option<Around>) {
    *lock(&AROUND) = around;
}

fn emit(write: &mut dyn FnMut()) {
    // Cloned out, so that the lock is not held while the bar redraws.
    let around = lock(&AROUND).clone();
    match around {
        Some(around) => around(write),
        None => write(),
    }
}
