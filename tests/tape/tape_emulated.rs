//! The real end-of-media, volume-change and restore code, driven against
//! the emulated drive (records, filemarks, a capacity and an early-warning
//! zone) through a real pipeline. Every byte is checked: the volumes,
//! concatenated, must be the input, no record may be written twice, and
//! every record but the last must be exactly one block.
//!
//! The helpers here write and read through the pipeline; the tests are in
//! `tape_emulated/`: writing across volumes (`writing.rs`), reading them
//! back (`restore.rs`), the volume trailers that tell a restore where the
//! backup ends (`trailers.rs`), and drives as real systems leave them, in
//! fixed-block mode or behind a transfer limit (`drive_state.rs`), and
//! logical block protection (`protection.rs`) and encryption
//! (`encryption.rs`).

use crate::common;

mod drive_state;
mod encryption;
mod protection;
mod restore;
mod trailers;
mod writing;

use std::io::Cursor;
use std::sync::{Arc, Mutex};

use common::memory::{Collect, Memory};
use tapebuf::observe::summary::Summary;
use tapebuf::pipeline::{Params, Running};
use tapebuf::sink::{Sink, TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::{ReadVolumes, Source, TapeReader, VolumeSource};
use tapebuf::tape::emulated::{Cartridge, Emulated, Shelf};
use tapebuf::volume::ChangePolicy;

const BLOCK: usize = 64 * 1024;

fn params(pad: bool) -> Params {
    common::memory::params(BLOCK, pad)
}

fn run(source: Box<dyn Source>, sink: Box<dyn Sink>, pad: bool) -> Summary {
    let running = Running::start(source, vec![sink], params(pad)).unwrap();
    let stats = Arc::clone(running.stats());
    assert!(running.wait(None));
    Summary::collect(&stats, None, None)
}

/// Writes `data` to an emulated drive holding `cartridges`.
fn write_to_tape(
    data: &[u8],
    cartridges: Vec<Cartridge>,
    settings: VolumeSettings,
) -> (Summary, Shelf) {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    (write_through(Box::new(drive), data, settings), shelf)
}

/// Writes `data` to `drive` through the volume sink.
fn write_through(
    drive: Box<dyn tapebuf::tape::Drive>,
    data: &[u8],
    settings: VolumeSettings,
) -> Summary {
    let sink = VolumeSink::new(Box::new(TapeMedium::new(drive)), "/dev/nst0", settings);
    run(
        Box::new(Memory(Cursor::new(data.to_vec()))),
        Box::new(sink),
        false,
    )
}

/// Reads `cartridges` back through the tape source.
fn read_from_tape(cartridges: Vec<Cartridge>, volumes: ReadVolumes) -> (Summary, Vec<u8>, Shelf) {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    let (summary, data) = read_through(Box::new(drive), volumes);
    (summary, data, shelf)
}

/// Reads what `drive` holds through the tape source.
fn read_through(drive: Box<dyn tapebuf::tape::Drive>, volumes: ReadVolumes) -> (Summary, Vec<u8>) {
    let source = VolumeSource::new(Box::new(TapeReader::new(drive)), "/dev/nst0", volumes);
    let out = Arc::new(Mutex::new(Vec::new()));
    let summary = run(Box::new(source), Box::new(Collect(Arc::clone(&out))), false);
    let data = out.lock().unwrap().clone();
    (summary, data)
}

/// A change command that puts the next cartridge in at once.
fn changing() -> ChangePolicy {
    ChangePolicy {
        command: Some("true".into()),
        timeout: None,
        loader: None,
    }
}

/// Writes `data` to `drive`, changing cartridges as each fills.
fn write_changing(drive: Box<dyn tapebuf::tape::Drive>, data: &[u8]) -> Summary {
    let settings = VolumeSettings {
        policy: changing(),
        ..VolumeSettings::default()
    };
    write_through(drive, data, settings)
}

/// Reads what `drive` holds, every volume the trailers say, changing
/// cartridges between them.
fn read_changing(drive: Box<dyn tapebuf::tape::Drive>) -> (Summary, Vec<u8>) {
    let volumes = ReadVolumes {
        policy: changing(),
        count: None,
        numbered: false,
        at_end: tapebuf::tape::AtEnd::Rewind,
    };
    read_through(drive, volumes)
}

fn blanks(n: usize) -> Vec<Cartridge> {
    // 1 MiB cartridges whose last 200 KiB are the early-warning zone.
    (0..n)
        .map(|_| Cartridge::blank(1 << 20, 200 << 10))
        .collect()
}

fn command_logging_to(log: &std::path::Path) -> ChangePolicy {
    ChangePolicy {
        command: Some(format!(
            "echo \"$TAPEBUF_VOLUME $TAPEBUF_DEVICE $TAPEBUF_MODE $TAPEBUF_VOLUME_BYTES\" >> {}",
            log.display()
        )),
        timeout: None,
        loader: None,
    }
}
