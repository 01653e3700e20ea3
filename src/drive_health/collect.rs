//! Asking a drive for its health and putting the answers into one
//! `DriveReport`: who it is (`identify`), one look at its pages and its
//! cartridge's memory (`look`), and its history by serial number. The
//! drive is any `Drive`, so the same code asks a real one (SG_IO) and the
//! emulated one; `report` is a pure function of the answers, tested on
//! values made by hand.

use super::baseline;
use super::schema::{
    AlertJson, DriveReport, EncryptionJson, HistoryJson, IdentityJson, LbpJson, StateJson, SCHEMA,
    SCHEMA_VERSION,
};
use crate::keys::tape_key::KeyPrint;
use crate::tape::encryption::setup as crypt;
use crate::tape::health::{identify, look, DriveCommands, Identity, Snapshot};
use crate::tape::protection::setup;
use crate::tape::scsi::pages::encryption::Mode;
use crate::tape::{Drive, DriveStatus};

/// What the drive answered, before it is a report.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// st's status, read when the drive was probed; None when not read.
    pub status: Option<DriveStatus>,
    pub identity: Option<Identity>,
    pub snapshot: Snapshot,
    pub history: Option<HistoryJson>,
    pub lbp: Option<LbpJson>,
    pub encryption: Option<EncryptionJson>,
}

/// Asks `drive` (named `name`, with `status` already read) for its
/// health; `history` finds the baseline of a serial number.
pub fn collect(
    drive: &mut dyn Drive,
    name: &str,
    status: Option<DriveStatus>,
    history: impl Fn(&str) -> Option<HistoryJson>,
) -> DriveReport {
    let identity = identify(&mut DriveCommands(drive));
    let snapshot = look(&mut DriveCommands(drive));
    let lbp = Some(lbp(drive));
    let encryption = Some(encryption(drive));
    let history = identity
        .as_ref()
        .and_then(|i| i.serial.as_deref())
        .and_then(history);
    report(
        name,
        Answers {
            status,
            identity,
            snapshot,
            history,
            lbp,
            encryption,
        },
    )
}

/// What the drive offers of logical block protection and has on now.
fn lbp(drive: &mut dyn Drive) -> LbpJson {
    let offer = setup::offer(drive);
    let now = match setup::current(drive) {
        Ok(Some(page)) => Some(match (page.in_force(), page.is_off()) {
            (Some(m), _) => m.name().to_string(),
            (None, true) => "off".to_string(),
            (None, false) => page.describe(),
        }),
        _ => None,
    };
    LbpJson {
        offered: offer.methods.iter().map(|m| m.name().to_string()).collect(),
        none_because: offer.why_none,
        now,
    }
}

/// What the drive can do of encryption and does now.
fn encryption(drive: &mut dyn Drive) -> EncryptionJson {
    let (capable, not_because) = match crypt::writing_algorithm(drive) {
        Ok(_) => (true, None),
        Err(why) => (false, Some(why)),
    };
    let status = crypt::status(drive).ok();
    let now = status.as_ref().map(|s| match s.encrypt {
        0 => Mode::describe(s.decrypt, false),
        code => Mode::describe(code, true),
    });
    EncryptionJson {
        capable,
        not_because,
        now,
        key_held: status.as_ref().map(|s| !s.is_off()),
        key: (status.as_ref())
            .and_then(|s| s.ukad.as_deref())
            .and_then(KeyPrint::from_ukad)
            .map(|k| k.to_string()),
    }
}

/// Asks `drive` as `collect` does, with its history from the user's state
/// directory.
pub fn collect_with_history(
    drive: &mut dyn Drive,
    name: &str,
    status: Option<DriveStatus>,
) -> DriveReport {
    collect(drive, name, status, baseline::load)
}

/// The report of the drive named `device` that answered `answers`.
pub fn report(device: &str, answers: Answers) -> DriveReport {
    let Answers {
        status,
        identity,
        snapshot,
        history,
        lbp,
        encryption,
    } = answers;
    let tape_alerts: Vec<AlertJson> = snapshot.alerts.flags().map(AlertJson::of).collect();
    let critical = tape_alerts.iter().any(|a| a.critical);
    DriveReport {
        schema: SCHEMA.to_string(),
        version: SCHEMA_VERSION,
        device: device.to_string(),
        identity: identity.map(|i| IdentityJson {
            vendor: i.vendor,
            product: i.product,
            revision: i.revision,
            serial: i.serial,
        }),
        state: status.map(state).unwrap_or_default(),
        cartridge: snapshot.mam,
        cartridge_unread: snapshot.memory_unread,
        tape_alerts,
        write_errors: snapshot.write_errors,
        read_errors: snapshot.read_errors,
        compression: snapshot.compression,
        volume_statistics: snapshot.volume,
        history,
        unreadable: snapshot.unreadable,
        critical,
        lbp,
        encryption,
    }
}

/// st's status as the report's state.
fn state(status: DriveStatus) -> StateJson {
    StateJson {
        cartridge: Some(!status.door_open),
        write_protected: Some(status.write_protected),
        online: Some(status.online),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape::emulated::{Cartridge, Emulated};
    use crate::tape::scsi::pages::tape_alert::TapeAlerts;

    #[test]
    fn raised_flags_are_named_and_a_critical_one_marks_the_report() {
        let mut alerts = TapeAlerts::default();
        alerts.insert(20);
        alerts.insert(21);
        let answers = Answers {
            snapshot: Snapshot {
                alerts,
                ..Snapshot::default()
            },
            ..Answers::default()
        };
        let r = report("/dev/nst0", answers);
        let flags: Vec<_> = r.tape_alerts.iter().map(|a| (a.flag, a.critical)).collect();
        assert_eq!(flags, [(20, true), (21, false)]);
        assert_eq!(
            r.tape_alerts[0].name,
            crate::tape::scsi::pages::tape_alert::name(20)
        );
        assert!(r.critical);
    }

    #[test]
    fn an_empty_drive_says_so_in_its_state() {
        let status = DriveStatus {
            door_open: true,
            ..DriveStatus::default()
        };
        let answers = Answers {
            status: Some(status),
            ..Answers::default()
        };
        let r = report("/dev/nst0", answers);
        assert_eq!(r.state.cartridge, Some(false));
        assert_eq!(r.state.online, Some(false));
        assert!(!r.critical);
        assert!(r.tape_alerts.is_empty());
    }

    #[test]
    fn the_history_is_looked_up_by_the_drives_serial_only() {
        let (mut drive, _shelf) = Emulated::new("nst9", vec![Cartridge::blank(1 << 20, 1 << 10)]);
        let asked = std::cell::RefCell::new(Vec::new());
        let r = collect(&mut drive, "/dev/nst9", None, |serial: &str| {
            asked.borrow_mut().push(serial.to_string());
            None
        });
        assert_eq!(r.device, "/dev/nst9");
        match &r.identity {
            Some(IdentityJson {
                serial: Some(serial),
                ..
            }) => assert_eq!(*asked.borrow(), std::slice::from_ref(serial)),
            _ => assert!(asked.borrow().is_empty()),
        }
    }
}
