//! One `-I` port serving many senders (`--senders N`): each stream runs as
//! a whole run of its own, with its own ring (its share of `-m`), its own
//! files named from the templates (`sink::name_template`), its own
//! summary line and manifest, in a thread of its own (`stream.rs`).
//!
//! What its threads share is `service.rs`; how the streams ended,
//! `tally.rs`. The acceptor (`acceptor.rs`) takes a connection whenever
//! fewer than 2N are in hand, and hands it to a thread that tells it
//! apart (header, `--allow-key`), routes it (`route.rs`: with
//! `--resume-timeout`, a sender coming back goes to the stream it
//! resumes) and runs its stream once one of the N places for a stream is
//! free; a connection that stalls holds up only its own slot, for at most
//! the time a connection has to say what it is. The N more connections
//! than streams are what lets a sender come back while every stream waits
//! for its own; senders beyond them wait in the listen backlog.
//!
//! The main thread watches signals and the ends of streams. The service
//! ends after `--streams N` streams have ended, or on SIGINT, SIGTERM or
//! SIGHUP, which stop every running stream as they stop a lone run (each
//! says so in its summary) and end the process by that signal. SIGUSR1
//! prints every running stream's status line. The exit status is 0 when
//! every stream was whole, else 1; the last line names the streams that
//! failed.

mod acceptor;
mod route;
mod service;
mod stream;
mod tally;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, select, unbounded};
use signal_hook::consts::SIGUSR1;

use crate::base::console::{self, message, say};
use crate::base::exit::{Exit, FAILURE, SUCCESS};
use crate::buffer::{watch_signals, STOP_GRACE};
use crate::config::{Config, InputSpec};
use crate::error::Error;
use service::Service;
use tally::{Outcome, Tally};

/// How long the streams still running after a stop may take to say
/// their summaries, beyond the grace each gives its writer.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// Runs the service as configured. Returns how the process should end.
pub fn run(config: &Config) -> Result<Exit, Error> {
    let plan = config.serve.expect("a service has its plan");
    let InputSpec::Listen(addr) = &config.input else {
        unreachable!("config::serve_flags allows --senders only with -I");
    };
    let (sig_rx, signal_handle) = watch_signals()?;
    crate::observe::open_files(&config.observe)?;
    if config.print_pid {
        say(&message!("PID is {}", std::process::id()));
    }
    let (listener, settings) = crate::source::bind(addr, &config.source.net, config.quiet())?;
    listener
        .accept_without_waiting()
        .map_err(|e| anyhow::anyhow!("-I {addr}: {e}"))?;
    let service = Arc::new(Service {
        config: config.clone(),
        plan,
        settings,
        listening: format!("-I {addr}"),
        seq: AtomicU64::new(0),
        live: Mutex::new(HashMap::new()),
        stopping: AtomicI32::new(0),
        sessions: Mutex::new(HashMap::new()),
        room: bounded(plan.senders),
    });
    let (outcome_tx, outcome_rx) = unbounded::<Outcome>();
    let (stop_tx, stop_rx) = bounded::<()>(0);
    let acceptor = acceptor::start(Arc::clone(&service), listener, outcome_tx, stop_rx)?;
    let mut tally = Tally::default();
    let interrupted = loop {
        if plan.streams.is_some_and(|n| tally.streams() >= n) {
            break None;
        }
        select! {
            recv(outcome_rx) -> outcome => match outcome {
                Ok(outcome) => tally.add(outcome),
                // The acceptor and every stream ended: nothing more comes.
                Err(_) => break None,
            },
            recv(sig_rx) -> sig => match sig {
                Ok(SIGUSR1) => service.status(&tally),
                Ok(sig) => break Some(sig),
                Err(_) => {}
            },
        }
    };
    if let Some(sig) = interrupted {
        service.stop_streams(sig);
    }
    drop(stop_tx);
    let spawned = acceptor.join().unwrap_or(0);
    let deadline = Instant::now() + STOP_GRACE + STOP_WAIT;
    while tally.ended() < spawned {
        match outcome_rx.recv_deadline(deadline) {
            Ok(outcome) => tally.add(outcome),
            Err(_) => {
                say(&message!(
                    "{}: {} streams did not end in time; leaving them",
                    service.listening,
                    spawned - tally.ended()
                ));
                break;
            }
        }
    }
    signal_handle.close();
    tally.report(&service.listening, config.quiet());
    let logged_ok = console::log_ok();
    Ok(match interrupted {
        Some(sig) => Exit::Signal(sig),
        None if tally.all_whole() && logged_ok => Exit::Code(SUCCESS),
        None => Exit::Code(FAILURE),
    })
}
