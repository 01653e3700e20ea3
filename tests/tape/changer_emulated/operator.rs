//! Waiting for the operator: a barcode the library lacks is asked for by
//! name, a cartridge in another drive is never taken, and a stop ends the
//! wait at once.

use std::time::{Duration, Instant};

use super::{data, slots, Lab, DRIVE};
use tapebuf::tape::changer::{ElementAddress, MediumChanger};
use tapebuf::tape::loader::{Wanted, Wanting};
use tapebuf::tape::Access;
use tapebuf::volume::VolumeLog;

fn volume_one() -> Wanting<'static> {
    Wanting {
        access: Access::Read,
        volume: 1,
        refused: None,
    }
}

#[test]
fn a_barcode_missing_from_the_library_is_asked_for_by_name_and_taken_when_handed_in() {
    let lab = Lab::new(vec![data("E01001L6"), None]);
    let loader = lab.loader(
        Wanted::Barcodes(vec!["E01005L6".into()]),
        false,
        Duration::from_secs(5),
    );
    let robot = lab.robot.clone();
    let operator = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        robot.lock().unwrap().hand_in(0, data("E01005L6").unwrap());
    });
    let log = VolumeLog::new("/dev/nst0");
    loader
        .change(&volume_one(), None, &crossbeam_channel::never(), &|n| {
            log.set_note(n)
        })
        .unwrap();
    operator.join().unwrap();
    assert_eq!(
        *lab.heard.lock().unwrap(),
        vec![
            "tapebuf: /dev/nst0: E01005L6, the cartridge of volume 1, is not in the library; \
             put it into import/export slot 1 within 5s (--change-timeout)"
        ]
    );
    let placed = loader.placements();
    assert_eq!(placed[0].barcode.as_deref(), Some("E01005L6"));
    assert_eq!(placed[0].slot, Some(2), "its home is the first empty slot");
    let (_, drives) = lab.barcodes();
    assert_eq!(drives[DRIVE.index].as_deref(), Some("E01005L6"));
}

#[test]
fn a_cartridge_in_another_drive_is_never_taken() {
    let lab = Lab::new(vec![data("E01001L6")]);
    let other = ElementAddress::drive(0);
    lab.robot
        .clone()
        .move_medium(ElementAddress::slot(0), other)
        .unwrap();
    let loader = lab.loader(
        Wanted::Barcodes(vec!["E01001L6".into()]),
        false,
        Duration::from_secs(5),
    );
    let log = VolumeLog::new("/dev/nst0");
    let e = loader
        .change(&volume_one(), None, &crossbeam_channel::never(), &|n| {
            log.set_note(n)
        })
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "/dev/nst0: E01001L6, the cartridge of volume 1, is in drive 0, another drive; it is not taken from there"
    );
    assert!(loader.moves().is_empty());
}

#[test]
fn a_stop_ends_the_wait_for_the_operator_at_once() {
    let lab = Lab::new(vec![None]);
    let loader = lab.loader(slots("1"), false, Duration::from_secs(60));
    let (stop_tx, stop) = crossbeam_channel::bounded::<()>(0);
    let started = Instant::now();
    let waiting = std::thread::spawn(move || loader.change(&volume_one(), None, &stop, &|_| {}));
    std::thread::sleep(Duration::from_millis(100));
    drop(stop_tx);
    let e = waiting.join().unwrap().unwrap_err();
    assert_eq!(
        e.to_string(),
        "/dev/nst0: stopped while waiting for a cartridge for volume 1"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}
