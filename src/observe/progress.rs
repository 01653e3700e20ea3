//! The live progress bar on stderr (indicatif): the ring's fill level as
//! the bar, the input and output rates over the last couple of seconds,
//! the totals, the underruns, and an ETA when the stream's size is known.
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

use super::settings::ProgressMode;
use super::Bar;
use crate::base::size::{Bytes, Rate};
use crate::pipeline::stats::{Snapshot, Stats};

/// The most redraws per second, and the update timer's rate.
pub const REDRAWS_PER_S: u8 = 5;
/// The window the displayed rates are averaged over.
const RATE_WINDOW: Duration = Duration::from_secs(2);

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
    std::thread::Builder::new()
        .name("progress".into())
        .spawn(move || {
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
                if drive_wait {
                    let note = crate::tape::change_notes(stats.volume_logs()).unwrap_or_default();
                    bar_slot.with_bar(|bar| bar.set_message(note));
                    continue;
                }
                window.push_back(now.clone());
                while window
                    .front()
                    .is_some_and(|s| now.seconds - s.seconds > RATE_WINDOW.as_secs_f64())
                {
                    window.pop_front();
                }
                let text = describe(&now, window.front(), total_bytes);
                bar_slot.with_bar(|bar| {
                    bar.set_position(now.fill_pct.round() as u64);
                    bar.set_prefix(format!("ring {:>3.0}%", now.fill_pct));
                    bar.set_message(text);
                });
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
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:10}] {wide_msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar
}

/// The text beside the bar: rates over the window, underruns, ETA, totals.
pub fn describe(now: &Snapshot, since: Option<&Snapshot>, total_bytes: Option<u64>) -> String {
    let (in_rate, out_rate) = match since {
        Some(s) if now.seconds > s.seconds => {
            let dt = now.seconds - s.seconds;
            (
                now.read_bytes.saturating_sub(s.read_bytes) as f64 / dt,
                now.written_bytes.saturating_sub(s.written_bytes) as f64 / dt,
            )
        }
        _ => (0.0, 0.0),
    };
    // The most useful first: a narrow terminal cuts the end.
    let mut text = format!(
        "in {}, out {}, {} underruns",
        Rate(in_rate),
        Rate(out_rate),
        now.underruns
    );
    if let Some(total) = total_bytes {
        let left = total.saturating_sub(now.written_bytes);
        let mean = if now.seconds > 0.0 {
            now.written_bytes as f64 / now.seconds
        } else {
            0.0
        };
        text += &match eta(left, mean) {
            Some(eta) => format!(", {:.0}% ETA {eta}", pct(now.written_bytes, total)),
            None => format!(", {:.0}%", pct(now.written_bytes, total)),
        };
    }
    text += &format!(
        ", {} in, {} out",
        Bytes(now.read_bytes),
        Bytes(now.written_bytes)
    );
    text
}

fn pct(part: u64, total: u64) -> f64 {
    if total == 0 {
        100.0
    } else {
        100.0 * part.min(total) as f64 / total as f64
    }
}

/// `H:MM:SS` to move `left` bytes at `rate`, or None without a rate.
fn eta(left: u64, rate_bytes_per_s: f64) -> Option<String> {
    if rate_bytes_per_s <= 0.0 {
        return None;
    }
    let s = (left as f64 / rate_bytes_per_s).ceil() as u64;
    Some(format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_and_the_messages_write_byte_counts_alike() {
        let mut n: u64 = 1;
        for _ in 0..64 {
            for value in [n - 1, n, n + n / 3, n.saturating_mul(1000)] {
                assert_eq!(
                    crate::base::size::Bytes(value).to_string(),
                    indicatif::BinaryBytes(value).to_string(),
                    "{value}"
                );
            }
            n = n.saturating_mul(2);
        }
        assert_eq!(
            crate::base::size::Bytes(u64::MAX).to_string(),
            indicatif::BinaryBytes(u64::MAX).to_string()
        );
    }

    fn snap(seconds: f64, read: u64, written: u64) -> Snapshot {
        Snapshot {
            seconds,
            read_bytes: read,
            written_bytes: written,
            fill_pct: 50.0,
            underruns: 2,
            ..Snapshot::default()
        }
    }

    #[test]
    fn shows_rates_over_the_window_totals_and_underruns() {
        let text = describe(
            &snap(2.0, 3_000_000, 2_000_000),
            Some(&snap(1.0, 1_000_000, 1_000_000)),
            None,
        );
        assert!(text.contains("2.0 MB/s"), "{text}");
        assert!(text.contains("1.0 MB/s"), "{text}");
        assert!(text.contains("2 underruns"), "{text}");
        assert!(!text.contains("ETA"), "{text}");
    }

    #[test]
    fn shows_an_eta_from_the_mean_output_rate_when_the_total_is_known() {
        // 1 MB in 10 s, 9 MB left: 90 s.
        let text = describe(&snap(10.0, 1_000_000, 1_000_000), None, Some(10_000_000));
        assert!(text.contains(", 10% ETA 0:01:30, "), "{text}");
    }
}
