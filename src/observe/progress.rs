//! The live progress bar on stderr (indicatif): the ring's fill level as
//! the bar, the input and output rates over the last couple of seconds,
//! the totals, the underruns, and an ETA when the stream's size is known,
//! in one line that fits the terminal's width (`progress_line`).
//!
//! Its thread redraws at most `REDRAWS_PER_S` times a second from the
//! atomic counters. During a volume change the bar is taken down, so that
//! a prompt on the terminal stays readable, and put back afterwards; while
//! the change waits for the drive to be ready, the bar says so instead.

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{select, tick, Receiver};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::progress_line::{fit, line};
use super::settings::ProgressMode;
use super::Bar;
use crate::pipeline::stats::{Snapshot, Stats};

/// The most redraws per second, and the update timer's rate.
pub const REDRAWS_PER_S: u8 = 5;
/// The window the displayed rates are averaged over.
const RATE_WINDOW: Duration = Duration::from_secs(2);
/// The width assumed when stderr is not a terminal (`--progress`).
const UNKNOWN_WIDTH: usize = 80;

/// True when the bar should be shown in this mode.
pub fn wanted(mode: ProgressMode) -> bool {
    match mode {
        ProgressMode::On => true,
        ProgressMode::Off => false,
        ProgressMode::Auto => std::io::stderr().is_terminal(),
    }
}

/// Starts the bar's thread. It ends, leaving the bar for the caller to
/// clear, when `stop` disconnects.
pub fn spawn(
    bar_slot: Bar,
    stats: Arc<Stats>,
    total_bytes: Option<u64>,
    mode: ProgressMode,
    stop: Receiver<()>,
) -> JoinHandle<bool> {
    crate::base::thread::spawn("progress", move || {
        let ticks = tick(Duration::from_millis(1000 / REDRAWS_PER_S as u64));
        let mut window: VecDeque<Snapshot> = VecDeque::new();
        let mut shown = false;
        loop {
            select! {
                recv(stop) -> _ => break,
                recv(ticks) -> _ => {}
            }
            let now = stats.snapshot();
            let drive_wait = now.changing_volume && super::waiting_for_a_drive(&stats);
            if now.changing_volume && !drive_wait {
                if shown {
                    bar_slot.set_bar(None);
                    shown = false;
                }
                continue;
            }
            if !shown {
                bar_slot.set_bar(Some(new_bar(mode)));
                shown = true;
            }
            let width = terminal_width();
            if drive_wait {
                let note = crate::volume::change_notes(stats.volume_logs()).unwrap_or_default();
                bar_slot.with_bar(|bar| bar.set_message(fit(&note, width)));
                continue;
            }
            window.push_back(now.clone());
            while window
                .front()
                .is_some_and(|s| now.seconds - s.seconds > RATE_WINDOW.as_secs_f64())
            {
                window.pop_front();
            }
            let text = line(&now, window.front(), total_bytes, width);
            bar_slot.with_bar(|bar| bar.set_message(text));
        }
        true
    })
    .expect("spawning the progress thread")
}

fn new_bar(mode: ProgressMode) -> ProgressBar {
    let target = match mode {
        // Forced: draw even to a file or a pipe, which indicatif's own
        // stderr target would hide.
        ProgressMode::On => {
            ProgressDrawTarget::term_like_with_hz(Box::new(console::Term::stderr()), REDRAWS_PER_S)
        }
        _ => ProgressDrawTarget::stderr_with_hz(REDRAWS_PER_S),
    };
    let bar = ProgressBar::with_draw_target(Some(100), target);
    // The whole line, bar included, is drawn by `progress_line` to fit.
    bar.set_style(ProgressStyle::with_template("{msg}").expect("a valid template"));
    bar
}

/// The columns of the terminal on stderr, or `UNKNOWN_WIDTH`.
fn terminal_width() -> usize {
    console::Term::stderr()
        .size_checked()
        .map_or(UNKNOWN_WIDTH, |(_, cols)| usize::from(cols))
}
