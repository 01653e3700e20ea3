//! The tape reader with a library's changer (the emulated one): each
//! volume's cartridge is fetched by the barcode the manifest recorded,
//! wherever it is, in the order the plan wants the volumes.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::tape_volumes::TapeVolumes;
use super::test_backup::TestBackup;
use super::volume_reader::VolumeReader;
use super::walk::RecordAt;
use crate::tape::changer::{ElementAddress, ElementKind, MediumChanger};
use crate::tape::emulated::changer::{EmulatedChanger, Robot, Tape};
use crate::tape::emulated::{Cartridge, Emulated, Item};
use crate::tape::loader::{Loader, LoaderSettings, SharedChanger, Wanted};
use crate::volume::ChangePolicy;

const DRIVE: ElementAddress = ElementAddress {
    kind: ElementKind::Drive,
    index: 0,
};

fn record(b: &TestBackup, volume: u32, record: u64) -> RecordAt {
    let v = b.manifest.volume(volume).unwrap();
    let offset = (0..record).map(|r| v.record_bytes(r).unwrap()).sum();
    RecordAt {
        volume,
        record,
        offset,
        bytes: v.record_bytes(record).unwrap(),
        stream_offset: b.manifest.volume_start(volume).unwrap() + offset,
    }
}

#[test]
fn each_volume_is_fetched_by_its_barcode_in_the_order_wanted() {
    let mut b = TestBackup::new(&[&[100; 3], &[100; 3], &[100; 2]]);
    let barcodes = ["E01001L6", "E01002L6", "E01003L6"];
    for (v, code) in b.manifest.volumes.iter_mut().zip(barcodes) {
        v.barcode = Some(code.to_string());
    }
    // The cartridges in the slots out of order, and a stranger.
    let cartridge = |records: &Vec<Vec<u8>>| {
        let mut items: Vec<Item> = records.iter().cloned().map(Item::Record).collect();
        items.push(Item::Filemark);
        Cartridge {
            items,
            ..Cartridge::blank(1 << 20, 0)
        }
    };
    let slots = vec![
        Some(Tape::tagged(barcodes[2]).holding(cartridge(&b.volumes[2]))),
        Some(Tape::tagged("X00001L6")),
        Some(Tape::tagged(barcodes[0]).holding(cartridge(&b.volumes[0]))),
        Some(Tape::tagged(barcodes[1]).holding(cartridge(&b.volumes[1]))),
    ];
    let robot: Robot = Arc::new(Mutex::new(EmulatedChanger::new(1, slots, 0)));
    let (_, shelf) = Emulated::in_library("/dev/nst0");
    robot
        .lock()
        .unwrap()
        .bind(0, Arc::clone(&shelf), "IBM     ULT3580-TD6     SERIAL-B");
    let changer: SharedChanger = Arc::new(Mutex::new(Box::new(robot) as Box<dyn MediumChanger>));
    let settings = LoaderSettings {
        drive: DRIVE,
        device: "/dev/nst0".into(),
        wanted: Wanted::Barcodes(barcodes.iter().map(|s| s.to_string()).collect()),
        clean: false,
        timeout: Some(Duration::from_secs(5)),
    };
    let loader = Loader::builder(changer, settings)
        .quiet(true)
        .timing(Duration::from_millis(10), Duration::from_millis(300))
        .build();
    let policy = ChangePolicy {
        command: None,
        timeout: Some(Duration::from_secs(5)),
        loader: Some(loader.clone()),
    };
    let drive = Emulated::attach("/dev/nst0", Arc::clone(&shelf));
    let mut tape = TapeVolumes::new(Box::new(drive), false, policy, &b.manifest, true);
    let mut buf = Vec::new();
    for (volume, r) in [(3, 1), (1, 2), (2, 0)] {
        tape.read(&record(&b, volume, r), &mut buf).unwrap();
        assert_eq!(buf, b.volumes[volume as usize - 1][r as usize]);
    }
    assert_eq!(tape.cost().volumes, 3);
    let placed: Vec<_> = loader
        .placements()
        .into_iter()
        .filter_map(|p| p.barcode)
        .collect();
    assert_eq!(placed, ["E01003L6", "E01001L6", "E01002L6"]);
}
