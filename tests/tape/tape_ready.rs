//! Volume changes on drives that are not ready at once, through a real
//! pipeline against the emulated drive: a cartridge that takes time to
//! load and calibrate (st's blocking open would fail with EIO), a
//! write-protected cartridge (st's open for writing fails with EROFS), and
//! a drive that never becomes ready. The watchdog is run as `run.rs` runs
//! it, on a timer over the counters, with a limit shorter than the load.

use crate::common;

use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{select, tick};

use common::memory::{Collect, Memory};
use common::{pattern, sha256};
use tapebuf::observe::summary::{status_line, Summary};
use tapebuf::pipeline::watchdog::Watchdog;
use tapebuf::pipeline::{Params, Running};
use tapebuf::sink::{Sink, TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::{ReadVolumes, Source, TapeReader, VolumeSource};
use tapebuf::tape::emulated::{Cartridge, Emulated, Shelf};
use tapebuf::volume::{change_notes, ChangePolicy, VolumeLog};

const BLOCK: usize = 64 * 1024;
/// How long the slow cartridges take to become ready.
const LOAD_DELAY: Duration = Duration::from_millis(600);

fn params() -> Params {
    common::memory::params(BLOCK, false)
}

/// What the run's main loop saw while the pipeline ran.
struct Watched {
    summary: Summary,
    /// Why the watchdog would have ended the run, if it would have.
    stalled: Option<String>,
    /// The status lines printed during volume changes.
    notes: Vec<String>,
}

/// Runs the pipeline with a watchdog of `limit` checked every 10 ms, as
/// `run.rs` checks its own, and the change notes sampled as often. A
/// stall ends the run, as it does there.
fn run_watched(source: Box<dyn Source>, sink: Box<dyn Sink>, limit: Duration) -> Watched {
    let mut running = Running::start(source, vec![sink], params()).unwrap();
    let stats = Arc::clone(running.stats());
    let mut watchdog = Watchdog::new(limit, Instant::now());
    let ticks = tick(Duration::from_millis(10));
    let deadline = crossbeam_channel::after(Duration::from_secs(30));
    let mut stalled = None;
    let mut notes: Vec<String> = Vec::new();
    loop {
        select! {
            recv(running.done()) -> _ => break,
            recv(ticks) -> _ => {
                if change_notes(stats.volume_logs()).is_some() {
                    notes.push(status_line(&stats));
                }
                if let Some(why) = watchdog.check(&stats.snapshot(), Instant::now()) {
                    stalled = Some(why);
                    break;
                }
            },
            recv(deadline) -> _ => panic!("the run did not end within 30 s"),
        }
    }
    running.stop();
    assert!(running.wait(Some(Duration::from_secs(10))));
    Watched {
        summary: Summary::collect(&stats, None, stalled.clone()),
        stalled,
        notes,
    }
}

/// Writes `data` to a drive holding `cartridges`, opened for writing.
fn back_up(data: &[u8], cartridges: Vec<Cartridge>, policy: ChangePolicy) -> (Watched, Shelf) {
    let (mut drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    drive.for_writing();
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(Box::new(drive))),
        "/dev/nst0",
        VolumeSettings {
            policy,
            ..VolumeSettings::default()
        },
    );
    let source = Box::new(Memory(Cursor::new(data.to_vec())));
    // Longer than any test here takes: only a real stall trips it.
    let watched = run_watched(source, Box::new(sink), Duration::from_secs(20));
    (watched, shelf)
}

fn blank() -> Cartridge {
    // 1 MiB cartridges whose last 200 KiB are the early-warning zone.
    Cartridge::blank(1 << 20, 200 << 10)
}

fn slow(cartridge: Cartridge, delay: Duration) -> Cartridge {
    Cartridge {
        load_delay: delay,
        ..cartridge
    }
}

/// A change command that logs the volume asked for and why the last
/// cartridge was refused.
fn logging_command(log: &std::path::Path, timeout: Option<Duration>) -> ChangePolicy {
    ChangePolicy {
        command: Some(format!(
            "echo \"$TAPEBUF_VOLUME ${{TAPEBUF_REFUSED:-first}}\" >> {}",
            log.display()
        )),
        timeout,
        loader: None,
    }
}

fn joined(shelf: &Shelf) -> Vec<u8> {
    let lib = shelf.lock().unwrap();
    lib.slots.iter().flat_map(|c| c.first_file()).collect()
}

#[test]
fn a_backup_waits_for_a_second_cartridge_that_is_slow_to_become_ready() {
    let dir = tempfile::tempdir().unwrap();
    let changes = dir.path().join("changes");
    let data = pattern(1_500_000, 11);
    let cartridges = vec![blank(), slow(blank(), LOAD_DELAY)];
    let started = Instant::now();
    let (watched, shelf) = back_up(&data, cartridges, logging_command(&changes, None));
    let summary = &watched.summary;
    assert!(summary.is_clean(), "{}", summary.line());
    assert!(started.elapsed() >= LOAD_DELAY, "the load delay was waited");
    assert_eq!(sha256(&joined(&shelf)), sha256(&data), "byte-exact");
    let lib = shelf.lock().unwrap();
    assert!(
        lib.unopened_polls >= 2,
        "the drive was asked until it was ready: {} polls",
        lib.unopened_polls
    );
    assert!(
        !lib.log.iter().any(|l| l.contains("not ready")),
        "no blocking open of a cartridge that was not ready: {:?}",
        lib.log
    );
    assert_eq!(std::fs::read_to_string(&changes).unwrap(), "2 first\n");
    assert!(
        watched
            .notes
            .iter()
            .any(|n| n.contains(" overruns, waiting ")
                && n.ends_with(" s for /dev/nst0 to be ready for volume 2")),
        "the wait was shown: {:?}",
        watched.notes
    );
}

#[test]
fn a_write_protected_cartridge_is_ejected_and_another_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let changes = dir.path().join("changes");
    let data = pattern(1_500_000, 12);
    let protected = Cartridge {
        write_protected: true,
        ..blank()
    };
    let cartridges = vec![blank(), protected, blank()];
    let (watched, shelf) = back_up(&data, cartridges, logging_command(&changes, None));
    let summary = &watched.summary;
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&joined(&shelf)), sha256(&data), "byte-exact");
    let lib = shelf.lock().unwrap();
    assert!(
        lib.slots[1].items.is_empty(),
        "nothing on the protected one"
    );
    assert!(!lib.slots[2].items.is_empty(), "the rest on the third");
    assert_eq!(
        std::fs::read_to_string(&changes).unwrap(),
        "2 first\n2 is write-protected\n",
        "the command was run again for volume 2, told why"
    );
    let unloads = lib.log.iter().filter(|l| *l == "unload").count();
    assert_eq!(unloads, 2, "volume 1 and the refused one: {:?}", lib.log);
    assert!(
        summary.line().contains("-o /dev/nst0 volumes: #1 "),
        "{}",
        summary.line()
    );
}

#[test]
fn the_watchdog_does_not_fire_while_the_drive_becomes_ready() {
    let dir = tempfile::tempdir().unwrap();
    let changes = dir.path().join("changes");
    let data = pattern(1_500_000, 13);
    let (mut drive, shelf) = Emulated::new("/dev/nst0", vec![blank(), slow(blank(), LOAD_DELAY)]);
    drive.for_writing();
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(Box::new(drive))),
        "/dev/nst0",
        VolumeSettings {
            policy: logging_command(&changes, None),
            ..VolumeSettings::default()
        },
    );
    let source = Box::new(Memory(Cursor::new(data.clone())));
    // A quarter of the load delay: a wait that counted as a stall trips it.
    let watched = run_watched(source, Box::new(sink), LOAD_DELAY / 4);
    assert_eq!(watched.stalled, None);
    assert!(watched.summary.is_clean(), "{}", watched.summary.line());
    assert_eq!(sha256(&joined(&shelf)), sha256(&data));
}

#[test]
fn a_drive_that_never_becomes_ready_fails_after_the_change_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let changes = dir.path().join("changes");
    let data = pattern(1_500_000, 14);
    let cartridges = vec![blank(), slow(blank(), Duration::MAX)];
    let policy = logging_command(&changes, Some(Duration::from_millis(300)));
    let started = Instant::now();
    let (watched, shelf) = back_up(&data, cartridges, policy);
    let summary = &watched.summary;
    assert!(!summary.is_clean());
    assert!(started.elapsed() < Duration::from_secs(10));
    let line = summary.line();
    assert!(
        line.contains("/dev/nst0 was still not ready for volume 2 after 0.3 s (--change-timeout)"),
        "{line}"
    );
    let on_volume_1 = shelf.lock().unwrap().slots[0].first_file();
    assert!(
        line.contains(&format!("{} bytes are safe on volume 1", on_volume_1.len())),
        "{line}"
    );
    assert_eq!(on_volume_1[..], data[..on_volume_1.len()]);
}

#[test]
fn a_restore_waits_for_a_second_cartridge_that_is_slow_to_become_ready() {
    let first = pattern(5 * BLOCK, 15);
    let second = pattern(3 * BLOCK, 16);
    let records = |d: &[u8]| d.chunks(BLOCK).map(<[u8]>::to_vec).collect::<Vec<_>>();
    let cartridges = vec![
        Cartridge::with_records(records(&first)),
        slow(Cartridge::with_records(records(&second)), LOAD_DELAY),
    ];
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    let source = VolumeSource::new(
        Box::new(TapeReader::new(Box::new(drive))),
        "/dev/nst0",
        ReadVolumes {
            policy: ChangePolicy {
                command: Some("true".into()),
                timeout: None,
                loader: None,
            },
            count: Some(2),
            ..ReadVolumes::default()
        },
    );
    let out = Arc::new(Mutex::new(Vec::new()));
    let sink = Box::new(Collect(Arc::clone(&out)));
    let watched = run_watched(Box::new(source), sink, LOAD_DELAY / 4);
    assert_eq!(watched.stalled, None);
    assert!(watched.summary.is_clean(), "{}", watched.summary.line());
    let mut want = first.clone();
    want.extend_from_slice(&second);
    assert_eq!(sha256(&out.lock().unwrap()), sha256(&want));
    assert!(shelf.lock().unwrap().unopened_polls >= 2);
}

#[test]
fn the_change_note_names_the_wait_and_the_volume() {
    let log = VolumeLog::new("/dev/nst0");
    assert_eq!(log.change_note(), None);
    log.set_changing(true);
    assert_eq!(
        log.change_note().as_deref(),
        Some("changing /dev/nst0 to volume 2")
    );
    log.set_waiting(true);
    assert_eq!(
        log.change_note().as_deref(),
        Some("waiting 0 s for /dev/nst0 to be ready for volume 2")
    );
}
