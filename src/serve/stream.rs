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

use super::service::Service;
use super::tally::Outcome;
use crate::base::console::{self, message, say};
use crate::base::signals::signal_name;
use crate::base::sync::lock;
use crate::buffer::{self, Endpoints};
use crate::config::serve_flags::stream_blocks;
use crate::config::{Config, ManifestPlan, OutputSpec};
use crate::net::accept::Accepted;
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
    let seq = service.seq.fetch_add(1, SeqCst) + 1;
    if let Some(n) = service.plan.streams.filter(|n| seq > *n) {
        say(&message!(
            "{}: refused a connection from {}: this service takes --streams {n}, and has them all",
            service.listening,
            crate::net::socket::show(sender.peer)
        ));
        return Outcome::Ignored;
    }
    console::label_thread(format!("stream {seq}"));
    let fields = fields_of(&sender, seq);
    let who = format!("stream {seq} ({} at {})", fields.name, sender.peer);
    let config = stream_config(&service.config, &fields);
    let (sig_tx, sig_rx) = unbounded();
    lock(&service.live).insert(seq, sig_tx);
    let whole = match service.stopping.load(SeqCst) {
        0 => run(&config, sender, &sig_rx),
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

/// What the stream's names are made of.
fn fields_of(sender: &Accepted, seq: u64) -> StreamFields {
    let peer = ip_of(sender.peer);
    StreamFields {
        name: match &sender.private {
            Some(p) => p.name.clone(),
            None => peer.clone(),
        },
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
fn run(config: &Config, sender: Accepted, signals: &Receiver<i32>) -> bool {
    let source = match TcpSource::served(sender, "-I".into(), &config.source.net, config.quiet()) {
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
