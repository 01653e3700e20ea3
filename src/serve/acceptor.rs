//! The service's acceptor: takes a connection whenever fewer than twice
//! `--senders` are in hand, and starts the thread that tells it apart and
//! runs its stream. It stops at a stop, or once `--streams` streams have
//! begun; it returns how many threads it started.

use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::Context;
use crossbeam_channel::{bounded, select, Receiver, Sender};

use super::service::Service;
use super::stream;
use super::tally::Outcome;
use crate::base::console::{message, say};
use crate::base::signals::stopped;
use crate::base::sync::lock;
use crate::net::accept_one::{arrive, Arrival};
use crate::net::socket::Listener;

/// How long one wait for a connection lasts before the stop is looked at.
const LOOK_EVERY: Duration = Duration::from_millis(200);

/// Starts the acceptor's thread.
pub(super) fn start(
    service: Arc<Service>,
    listener: Listener,
    outcomes: Sender<Outcome>,
    stop: Receiver<()>,
) -> anyhow::Result<JoinHandle<u64>> {
    crate::base::thread::spawn("acceptor", move || {
        accept_all(&service, &listener, &outcomes, &stop)
    })
    .context("cannot start the acceptor thread")
}

fn accept_all(
    service: &Arc<Service>,
    listener: &Listener,
    outcomes: &Sender<Outcome>,
    stop: &Receiver<()>,
) -> u64 {
    // A slot is held from the accept to the end of the stream; N more
    // than the streams, so that a sender coming back is taken while every
    // stream waits for its own (`route.rs`).
    let (slot_tx, slot_rx) = bounded::<()>(2 * service.plan.senders);
    let mut spawned = 0;
    loop {
        select! {
            send(slot_tx, ()) -> _ => {},
            recv(stop) -> _ => break,
        }
        let Some(arrival) = next_arrival(service, listener, stop) else {
            break;
        };
        let (shared, outcomes, stop, slot) = (
            Arc::clone(service),
            outcomes.clone(),
            stop.clone(),
            slot_rx.clone(),
        );
        let started = crate::base::thread::spawn("stream", move || {
            let outcome = stream::serve(&shared, arrival, &stop);
            let _ = slot.recv();
            let _ = outcomes.send(outcome);
        });
        match started {
            Ok(_) => spawned += 1,
            Err(e) => {
                say(&message!(
                    "{}: cannot start a stream's thread: {e}",
                    service.listening
                ));
                let _ = slot_rx.recv();
            }
        }
    }
    spawned
}

/// The next connection that `--allow` covers; None once stopped, or
/// once `--streams` streams have begun and none of them can still be
/// resumed (its sender comes back through this listener).
fn next_arrival(service: &Service, listener: &Listener, stop: &Receiver<()>) -> Option<Arrival> {
    let mut note = |line: String| say(&message!("{}: {line}", service.listening));
    loop {
        let begun = service.seq.load(SeqCst);
        let all_begun = service.plan.streams.is_some_and(|n| begun >= n);
        if stopped(stop) || (all_begun && lock(&service.sessions).is_empty()) {
            return None;
        }
        match arrive(listener, &service.settings, LOOK_EVERY, &mut note) {
            Ok(Some(arrival)) => return Some(arrival),
            Ok(None) => {}
            Err(e) => {
                // Out of descriptors, say: the wait goes on, and the
                // stop is still heard.
                note(format!("cannot accept a connection: {e}"));
                let _ = stop.recv_timeout(LOOK_EVERY);
            }
        }
    }
}
