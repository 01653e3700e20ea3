//! One connection of a service, in a thread of its own: told apart from
//! strangers, given its number and its files (the templates filled in),
//! and run as a whole run of its own, with its own ring, watchdog,
//! summary line, digests and manifest. Every line it says names it
//! (`tapebuf: stream 3: ...`).

use std::net::SocketAddr;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;
use std::time::SystemTime;

use crossbeam_channel::{unbounded, Receiver};

use super::route::{Route, Taken};
use super::service::Service;
use super::tally::Outcome;
use crate::base::console::{self, message, say};
use crate::base::signals::signal_name;
use crate::base::sync::lock;
use crate::buffer::{self, Endpoints};
use crate::config::serve_flags::stream_blocks;
use crate::config::{Config, ManifestPlan, OutputSpec};
use crate::net::accept_one::{identify, Arrival};
use crate::observe::summary::Summary;
use crate::sink::name_template::{expand, StreamFields};
use crate::source::{Source, TcpSource};

/// Tells the connection apart and, if it is a sender, runs its stream.
pub(super) fn serve(service: &Service, arrival: Arrival, stop: &Receiver<()>) -> Outcome {
    let sender = match identify(arrival, &service.settings, stop) {
        Ok(sender) => sender,
        Err(line) => {
            say(&message!("{}: {line}", service.listening));
            return Outcome::Ignored;
        }
    };
    let peer = sender.peer;
    let (name, taken) = match service.route(sender) {
        Route::Stream(taken) => (taken.name(), taken),
        Route::Handed => return Outcome::Ignored,
        Route::Refused(line) => {
            say(&message!("{}: {line}", service.listening));
            return Outcome::Ignored;
        }
    };
    let session = taken.session();
    let outcome = match service.take_room(stop) {
        true => begin(service, taken, (name, peer)),
        false => {
            say(&message!(
                "{}: ignored a connection from {}: the service was stopped",
                service.listening,
                crate::net::socket::show(peer)
            ));
            Outcome::Ignored
        }
    };
    service.forget(&session);
    outcome
}

/// Begins the stream of a connection that has its place, and gives the
/// place back at its end.
fn begin(service: &Service, taken: Taken, (name, peer): (Option<String>, SocketAddr)) -> Outcome {
    let outcome = numbered(service, taken, (name, peer));
    let _ = service.room.1.recv();
    outcome
}

/// Numbers the stream and runs it, unless the service has all its streams.
fn numbered(
    service: &Service,
    taken: Taken,
    (name, peer): (Option<String>, SocketAddr),
) -> Outcome {
    let seq = service.seq.fetch_add(1, SeqCst) + 1;
    if let Some(n) = service.plan.streams.filter(|n| seq > *n) {
        say(&message!(
            "{}: refused a connection from {}: this service takes --streams {n}, and has them all",
            service.listening,
            crate::net::socket::show(peer)
        ));
        return Outcome::Ignored;
    }
    console::label_thread(format!("stream {seq}"));
    let fields = fields_of(name, peer, seq);
    let who = format!("stream {seq} ({} at {peer})", fields.name);
    let config = stream_config(&service.config, &fields);
    let (sig_tx, sig_rx) = unbounded();
    lock(&service.live).insert(seq, sig_tx);
    let whole = match service.stopping.load(SeqCst) {
        0 => run(&config, taken, &sig_rx),
        sig => {
            say(&message!(
                "not begun: the service was stopped by {}",
                signal_name(sig)
            ));
            false
        }
    };
    lock(&service.live).remove(&seq);
    match whole {
        true => Outcome::Whole,
        false => Outcome::Failed(who),
    }
}

/// What the stream's names are made of: `name`, the sender's key's name
/// if it has one.
fn fields_of(name: Option<String>, peer: SocketAddr, seq: u64) -> StreamFields {
    let peer = ip_of(peer);
    StreamFields {
        name: name.unwrap_or_else(|| peer.clone()),
        peer,
        seq,
        started: SystemTime::now(),
    }
}

fn ip_of(peer: SocketAddr) -> String {
    peer.ip().to_canonical().to_string()
}

/// The service's configuration as one stream's: its files named, its
/// share of the ring.
fn stream_config(base: &Config, fields: &StreamFields) -> Config {
    let mut config = base.clone();
    for output in &mut config.outputs {
        if let OutputSpec::File(path) = output {
            *path = expand(path, fields);
        }
    }
    if let ManifestPlan::Record {
        path: Some(path), ..
    } = &mut config.manifest
    {
        *path = expand(path, fields);
    }
    if let Some(path) = &mut config.hash_file {
        *path = expand(path, fields);
    }
    let plan = base.serve.expect("a service has its plan");
    config.pipeline.blocks = stream_blocks(plan, &base.pipeline);
    config
}

/// Runs the stream to its end; true when it was whole. `signals` hears
/// the service's signals.
fn run(config: &Config, taken: Taken, signals: &Receiver<i32>) -> bool {
    let (net, quiet) = (&config.source.net, config.quiet());
    let source = match taken {
        Taken::Sender(sender) => TcpSource::served(*sender, "-I".into(), net, quiet),
        Taken::Resumable(back, mailbox) => {
            TcpSource::served_resumable(*back, mailbox, "-I".into(), net, quiet)
        }
    };
    let source = match source {
        Ok(source) => source,
        Err(why) => {
            say(&message!("not begun: {why}"));
            return false;
        }
    };
    let names: Vec<String> = config
        .outputs
        .iter()
        .map(OutputSpec::display_name)
        .collect();
    if !config.quiet() {
        say(&message!("{} to {}", source.name(), names.join(", ")));
    }
    let opened = match crate::sink::open_all(&config.outputs, &config.sink, None, false) {
        Ok(opened) => opened,
        Err(e) => {
            say(&message!("not begun: {e}"));
            return false;
        }
    };
    let endpoints = Endpoints {
        source: Box::new(source),
        sinks: opened.sinks,
        created: opened.created,
    };
    let (created, ledgers) = (endpoints.created.clone(), endpoints.ledgers());
    let (running, digests, _) = match buffer::start(config, endpoints) {
        Ok(started) => started,
        Err(e) => {
            say(&message!("not begun: {e}"));
            return false;
        }
    };
    let stats = Arc::clone(running.stats());
    let ticks = buffer::watchdog_ticks(config);
    let (interrupted, stalled) = buffer::see_through(config, running, signals, &ticks);
    let summary = Summary::collect(&stats, interrupted.map(signal_name), stalled)
        .verbose(config.observe.verbose);
    let closed_ok = buffer::close(config, &summary, &digests, &ledgers, &created);
    summary.is_clean() && closed_ok
}
