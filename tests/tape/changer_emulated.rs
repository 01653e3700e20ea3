//! Volume changes through an emulated library's changer, without a change
//! command: the real loader, first load, volume change and pipeline,
//! driven against the emulated changer (`tape::emulated::changer`) whose
//! drive elements are bound to emulated drives. The drive elements do not
//! follow the device names (`/dev/nst0` is drive element 1, with the
//! second serial), so that a guess from numbering fails.
//!
//! The helpers build the library and run a backup or restore; the tests
//! are in `changer_emulated/`: backups and restores across cartridges
//! (`spanning.rs`), the pool's skips and running out (`pool.rs`),
//! cleaning between volumes (`cleaning.rs`), robot failures and stops
//! (`failures.rs`), and waiting for the operator (`operator.rs`).

use crate::common;

mod cleaning;
mod failures;
mod operator;
mod pool;
mod spanning;

use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::memory::{Collect, Memory};
use tapebuf::observe::summary::Summary;
use tapebuf::pipeline::Running;
use tapebuf::sink::{Sink, TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::{ReadVolumes, Source, TapeReader, VolumeSource};
use tapebuf::tape::changer::{ElementAddress, MediumChanger};
use tapebuf::tape::emulated::changer::{EmulatedChanger, Robot, Tape};
use tapebuf::tape::emulated::{Cartridge, Emulated, Shelf};
use tapebuf::tape::loader::{Loader, LoaderBuilder, LoaderSettings, Pool, SharedChanger, Wanted};
use tapebuf::tape::{Access, AtEnd, Drive};
use tapebuf::volume::first_load::open_first;
use tapebuf::volume::ChangePolicy;

const BLOCK: usize = 64 * 1024;

/// The drive element of `/dev/nst0`.
const DRIVE: ElementAddress = ElementAddress {
    kind: tapebuf::tape::changer::ElementKind::Drive,
    index: 1,
};

/// A library of two drives (`/dev/nst1` is element 0, `/dev/nst0`
/// element 1), one import/export slot, and `slots`.
pub struct Lab {
    pub robot: Robot,
    /// `/dev/nst0`'s drive, as the emulation keeps it.
    pub shelf: Shelf,
    /// `/dev/nst1`'s, never to be touched.
    pub other: Shelf,
    /// The lines the loaders said (only calls for the operator, unless a
    /// test makes a loader not quiet).
    pub heard: Arc<Mutex<Vec<String>>>,
}

impl Lab {
    pub fn new(slots: Vec<Option<Tape>>) -> Lab {
        let robot: Robot = Arc::new(Mutex::new(EmulatedChanger::new(2, slots, 1)));
        let (_, shelf) = Emulated::in_library("/dev/nst0");
        let (_, other) = Emulated::in_library("/dev/nst1");
        {
            let mut r = robot.lock().unwrap();
            r.bind(0, Arc::clone(&other), "IBM     ULT3580-TD6     SERIAL-A");
            r.bind(1, Arc::clone(&shelf), "IBM     ULT3580-TD6     SERIAL-B");
        }
        Lab {
            robot,
            shelf,
            other,
            heard: Arc::default(),
        }
    }

    /// A loader for `/dev/nst0` with `wanted`, quick to poll.
    pub fn loader(&self, wanted: Wanted, clean: bool, timeout: Duration) -> Loader {
        self.builder(wanted, clean, timeout).build()
    }

    /// The loader's settings as `loader` makes them, still to be fixed.
    pub fn builder(&self, wanted: Wanted, clean: bool, timeout: Duration) -> LoaderBuilder {
        let changer: SharedChanger = Arc::new(Mutex::new(
            Box::new(Arc::clone(&self.robot)) as Box<dyn MediumChanger>
        ));
        let settings = LoaderSettings {
            drive: DRIVE,
            device: "/dev/nst0".into(),
            wanted,
            clean,
            timeout: Some(timeout),
        };
        let heard = Arc::clone(&self.heard);
        Loader::builder(changer, settings)
            .quiet(true)
            .notices(Arc::new(move |line: &str| {
                heard.lock().unwrap().push(line.to_string())
            }))
            .timing(Duration::from_millis(10), Duration::from_millis(300))
    }

    /// `/dev/nst0`, closed, for `access`.
    pub fn drive(&self, access: Access) -> Emulated {
        let mut drive = Emulated::attach("/dev/nst0", Arc::clone(&self.shelf));
        if access == Access::Write {
            drive.for_writing();
        }
        drive
    }

    /// The barcode in each slot, and in each drive.
    pub fn barcodes(&self) -> (Vec<Option<String>>, Vec<Option<String>>) {
        let mut robot = self.robot.lock().unwrap();
        let label = |e: &tapebuf::tape::changer::Element| e.barcode.clone();
        let slots = robot
            .elements(tapebuf::tape::changer::ElementKind::Slot)
            .unwrap();
        let drives = robot
            .elements(tapebuf::tape::changer::ElementKind::Drive)
            .unwrap();
        (
            slots.iter().map(label).collect(),
            drives.iter().map(label).collect(),
        )
    }

    /// What is on the cartridge `barcode` now, before its first filemark.
    pub fn data_on(&self, barcode: &str) -> Vec<u8> {
        let robot = self.robot.lock().unwrap();
        robot.cartridge(barcode).unwrap().first_file()
    }
}

/// The barcodes `loader` placed volumes on, in volume order.
pub fn placed(loader: &Loader) -> Vec<String> {
    loader
        .placements()
        .into_iter()
        .map(|p| p.barcode.unwrap())
        .collect()
}

/// A data cartridge of 1 MiB with a 200 KiB early-warning zone.
pub fn data(barcode: &str) -> Option<Tape> {
    Some(Tape::tagged(barcode).holding(Cartridge::blank(1 << 20, 200 << 10)))
}

/// A policy changing volumes through `loader`.
pub fn policy(loader: &Loader) -> ChangePolicy {
    ChangePolicy {
        command: None,
        timeout: Some(Duration::from_secs(10)),
        loader: Some(loader.clone()),
    }
}

pub fn slots(text: &str) -> Wanted {
    Wanted::Pool(Pool::parse_slots(text).unwrap())
}

fn run(source: Box<dyn Source>, sink: Box<dyn Sink>) -> Summary {
    let running = Running::start(source, vec![sink], common::memory::params(BLOCK, false)).unwrap();
    let stats = Arc::clone(running.stats());
    assert!(running.wait(None));
    Summary::collect(&stats, None, None)
}

/// Writes `data` to `/dev/nst0` with volumes changed by `loader`;
/// `wrap` may wrap the drive (a cleaning watch) after its first load.
pub fn backup(
    lab: &Lab,
    loader: &Loader,
    data: &[u8],
    wrap: impl FnOnce(Box<dyn Drive>) -> Box<dyn Drive>,
) -> Result<Summary, String> {
    let policy = policy(loader);
    let mut drive = lab.drive(Access::Write);
    let status = drive.status_unopened().unwrap();
    open_first(&mut drive, status, Access::Write, &policy, true)?;
    let settings = VolumeSettings {
        policy,
        ..VolumeSettings::default()
    };
    let medium = TapeMedium::new(wrap(Box::new(drive)));
    let sink = VolumeSink::new(Box::new(medium), "/dev/nst0", settings);
    let input = Memory(Cursor::new(data.to_vec()));
    Ok(run(Box::new(input), Box::new(sink)))
}

/// Reads `volumes` volumes from `/dev/nst0` with volumes changed by
/// `loader`.
pub fn restore(lab: &Lab, loader: &Loader, volumes: u32) -> Result<(Summary, Vec<u8>), String> {
    let policy = policy(loader);
    let mut drive = lab.drive(Access::Read);
    let status = drive.status_unopened().unwrap();
    open_first(&mut drive, status, Access::Read, &policy, true)?;
    let plan = ReadVolumes {
        policy,
        count: Some(volumes),
        numbered: false,
        at_end: AtEnd::Rewind,
    };
    let source = VolumeSource::new(
        Box::new(TapeReader::new(Box::new(drive))),
        "/dev/nst0",
        plan,
    );
    let out = Arc::new(Mutex::new(Vec::new()));
    let summary = run(Box::new(source), Box::new(Collect(Arc::clone(&out))));
    let back = out.lock().unwrap().clone();
    Ok((summary, back))
}
