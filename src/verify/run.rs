//! Running `tapebuf verify`: the manifest is read first (an unreadable one,
//! or one that fails its checks, is a usage error), the input opened as a
//! restore would open it, and the volumes read into nothing, hashed in
//! order into the stream digest.
//!
//! Why the source layer and not a pipeline: the bytes go nowhere, so a
//! ring and a writer thread would only add copies; `VolumeSource::fill`
//! on one block-sized buffer drives the same change command, prompt,
//! drive waits and per-volume check as a restore does.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::fifo_wait::{self, OpenWatch};
use super::messages::{verdict, volume_line};
use super::stream_digest::StreamDigest;
use crate::base::console::{message, say};
use crate::base::exit::{Exit, FAILURE, SUCCESS, USAGE};
use crate::cli::command::Command;
use crate::cli::verify::VerifyCli;
use crate::config::verify::verify_input;
use crate::config::MachineInfo;
use crate::error::Error;
use crate::hash::HashAlg;
use crate::manifest::Manifest;
use crate::rmt::shell_guard::{AfterSignal, ShellGuard};
use crate::sink::read_back::drop_cached;
use crate::source::spec::InputSpec;
use crate::source::{open_verified, End, Outcome, Report};
use crate::volume::VolumeNames;

/// `tapebuf verify`.
pub struct Verify;

impl Command for Verify {
    const NAME: &'static str = "verify";
    type Args = VerifyCli;

    fn run(args: VerifyCli) -> Exit {
        let path = args.manifest.display().to_string();
        let manifest = match Manifest::load(&args.manifest) {
            Ok(m) => Arc::new(m),
            Err(e) => {
                say(&message!("--manifest {path}: {e}"));
                return Exit::Code(USAGE);
            }
        };
        // A remote shell must not outlive verify, however it ends; a stop
        // signal ends them and then the process, as before it was caught.
        let guard = match ShellGuard::install("verify", AfterSignal::Die) {
            Ok(guard) => guard,
            Err(e) => {
                say(&message!("verify: {e:#}"));
                return Exit::Code(FAILURE);
            }
        };
        let outcome = verify(&args, manifest, &guard);
        if let Some(sig) = guard.caught() {
            // The guard has said so; the failure was the ended shells.
            return Exit::Signal(sig);
        }
        match outcome {
            Ok(true) => Exit::Code(SUCCESS),
            Ok(false) => Exit::Code(FAILURE),
            Err(e) => {
                say(&message!("verify: {e}"));
                Exit::Code(e.exit_code())
            }
        }
    }
}

/// Reads every volume; true when all matched and the backup was whole.
fn verify(args: &VerifyCli, manifest: Arc<Manifest>, guard: &ShellGuard) -> Result<bool, Error> {
    let (input, settings) = verify_input(args, &manifest, MachineInfo::current())?;
    let outcomes = Arc::new(Mutex::new(Vec::<Outcome>::new()));
    let seen = Arc::clone(&outcomes);
    let quiet = args.quiet;
    let report: Report = Box::new(move |o: &Outcome| {
        if !quiet || o.problem.is_some() {
            say(&volume_line(o));
        }
        seen.lock().unwrap().push(o.clone());
    });
    if let InputSpec::File(pattern) = &input {
        uncache_files(pattern, manifest.volumes.len());
    }
    let file = match &input {
        InputSpec::File(path) => Some(path.as_path()),
        _ => None,
    };
    let watch = OpenWatch::start(file, fifo_limit(args));
    let opened = open_verified(&input, &settings, Arc::clone(&manifest), report);
    drop(watch);
    let mut source = opened.map_err(|e| match args.input {
        Some(_) => Error::Runtime(anyhow::anyhow!("{e}")),
        None => Error::Runtime(anyhow::anyhow!(
            "{e} (-i is the manifest's output, as the backup named it; name the volumes with -i)"
        )),
    })?;
    let arrived = AtomicU64::new(0);
    // The stream's digest, of every byte handed on: the volumes' bytes in
    // order, whole only when every volume was read and matched.
    let alg = HashAlg::from_name(&manifest.digest_algorithm).unwrap_or(HashAlg::Xxh3);
    // Each buffer has the room after the block that the source reads a
    // tape's CRCs into, copying nothing.
    let block = settings.endpoint.block_bytes;
    let stream = StreamDigest::start(alg, block + source.room_after_block());
    let stopped = loop {
        let mut buf = stream.buffer();
        let filled = source.fill_in(&mut buf, block, &arrived);
        stream.hand_on(buf, filled.bytes);
        match filled.end {
            End::More => {}
            End::Eof => break false,
            End::Failed(_) if guard.caught().is_some() => break true,
            End::Failed(e) => {
                say(&message!("verify: {}: {e}", source.name()));
                break true;
            }
        }
    };
    if guard.caught().is_some() {
        return Ok(false);
    }
    let outcomes = outcomes.lock().unwrap().clone();
    let (line, ok) = verdict(&manifest, &outcomes, stopped, &stream.finish());
    if !quiet || !ok {
        say(&line);
    }
    Ok(ok)
}

/// How long a FIFO given as `-i` may wait for its writer.
fn fifo_limit(args: &VerifyCli) -> Duration {
    args.timeout
        .map_or(fifo_wait::DEFAULT_LIMIT, Duration::from_secs)
}

/// Drops the cached pages of the file volumes named by `pattern`, so that
/// the check reads what the disk holds, not what is still in memory from
/// the backup. Devices and files that cannot be opened are left alone:
/// reading them says what is wrong.
fn uncache_files(pattern: &std::path::Path, volumes: usize) {
    let Ok(names) = VolumeNames::parse(pattern) else {
        return;
    };
    let count = if names.is_numbered() { volumes } else { 1 };
    for n in 1..=count {
        let path = names.volume(n as u32);
        // Only a regular file is opened: opening an empty tape drive
        // waits two minutes for a cartridge, and a FIFO for a writer.
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        if let Ok(file) = std::fs::File::open(&path) {
            let _ = drop_cached(&file);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn only_regular_files_are_opened_to_drop_their_cache_never_a_device_or_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("backup.fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let (done_tx, done) = crossbeam_channel::bounded(1);
        let pattern = fifo.clone();
        std::thread::spawn(move || {
            uncache_files(&pattern, 1);
            let _ = done_tx.send(());
        });
        // Opening the FIFO would wait for a writer for ever, as opening an
        // empty tape drive waits for a cartridge.
        assert!(
            done.recv_timeout(Duration::from_secs(10)).is_ok(),
            "uncache_files opened a FIFO"
        );
    }
}
