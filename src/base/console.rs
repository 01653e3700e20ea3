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
//!   nothing of bars.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// Runs a write with the screen prepared for it (the bar cleared).
pub type Around = Arc<dyn Fn(&mut dyn FnMut()) + Send + Sync>;

static AROUND: Mutex<Option<Around>> = Mutex::new(None);

/// Writes one line to stderr.
pub fn say(line: &str) {
    emit(&mut || {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{line}");
    });
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
    *AROUND.lock().unwrap_or_else(|e| e.into_inner()) = around;
}

fn emit(write: &mut dyn FnMut()) {
    // Cloned out, so that the lock is not held while the bar redraws.
    let around = AROUND.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match around {
        Some(around) => around(write),
        None => write(),
    }
}
