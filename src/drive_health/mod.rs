//! `tapebuf drive DEVICE [--json]`: one screen (or one line of JSON) of a
//! tape drive's and its cartridge's health, read without writing or
//! moving anything: identity, state, the cartridge's memory, TapeAlert
//! flags raised now, error counters, compression, volume statistics and
//! the drive's baseline from its history.
//!
//! The parts: `open` (the path looked at, refused when remote or not a
//! tape drive, then probed without waiting for a cartridge; every failure
//! one line and an exit status), `collect` (the drive asked through
//! `tape::health`, the answers made one `DriveReport`), `baseline` (the
//! history's usual figures), `schema` (the report's JSON, whose field
//! names are an API) and `text` (the same value for people). The drive
//! is asked through the `Drive` trait, so collecting is tested against
//! the emulated drive, and the renderer and the JSON on a report filled
//! by hand (`sample.rs`, test-only). SIGUSR1, meant for a running
//! backup, is absorbed, as `library` absorbs it.
//!
//! Exit status: 0 the health was shown, nothing critical; 1 the drive
//! could not be opened or asked (the report is still shown, with why),
//! or standard output could not be written; 2 a usage error, a remote
//! name or a path that is not a tape drive; 3 a critical TapeAlert flag
//! is raised (`tape::health::critical`).

pub mod baseline;
pub mod collect;
pub mod open;
#[cfg(any(test, feature = "test-support"))]
pub mod sample;
pub mod schema;
pub mod text;

use std::io::{self, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use signal_hook::consts::SIGUSR1;

use crate::base::console::{message, say};
use crate::base::exit::{Exit, DRIVE_ALERT, FAILURE, SUCCESS, USAGE};
use crate::base::path_registry::{Registry, Role};
use crate::cli::command::Command;
use crate::cli::drive::DriveCli;
use crate::tape::Drive;
use schema::DriveReport;

/// `tapebuf drive`.
pub struct DriveHealth;

impl Command for DriveHealth {
    const NAME: &'static str = "drive";
    type Args = DriveCli;

    fn run(cli: DriveCli) -> Exit {
        if let Err(e) = signal_hook::flag::register(SIGUSR1, Arc::new(AtomicBool::new(false))) {
            say(&message!("drive: cannot install signal handlers: {e}"));
            return Exit::Code(FAILURE);
        }
        let what = format!("DEVICE {}", cli.device.display());
        if let Err(e) = Registry::one_path_and_stdout(&what, &cli.device, Role::Read) {
            say(&message!("drive: {e}"));
            return Exit::Code(USAGE);
        }
        let (mut device, status) = match open::probe(&cli.device) {
            Ok(found) => found,
            Err(refusal) => {
                say(&refusal.line);
                return Exit::Code(refusal.status);
            }
        };
        let name = cli.device.display().to_string();
        if cli.no_lbp {
            if let Err(e) = crate::tape::protection::setup::set(&mut device, None) {
                say(&message!("drive: {name}: --no-lbp: {e}"));
                return Exit::Code(FAILURE);
            }
        }
        if cli.clear_key {
            let index = crate::tape::encryption::setup::reading_index(&mut device);
            if let Err(e) = crate::tape::encryption::setup::clear(&mut device, index) {
                say(&message!("drive: {name}: --clear-key: {e}"));
                return Exit::Code(FAILURE);
            }
        }
        let report = collect::collect_with_history(&mut device, &name, status);
        let _ = device.close();
        let text = if cli.json {
            serde_json::to_string(&report).map(|line| line + "\n")
        } else {
            Ok(text::render(&report))
        };
        if let Err(e) = text.map_err(io::Error::from).and_then(|t| print(&t)) {
            say(&message!("drive: cannot write the report: {e}"));
            return Exit::Code(FAILURE);
        }
        if let Some(why) = &report.unreadable {
            say(&message!("drive: {name}: cannot ask it: {why}"));
        }
        Exit::Code(status_of(&report))
    }
}

/// The exit status a shown report ends with: 1 when the drive could not
/// be asked, else 3 when a critical flag is raised, else 0.
pub fn status_of(report: &DriveReport) -> i32 {
    if report.unreadable.is_some() {
        FAILURE
    } else if report.critical {
        DRIVE_ALERT
    } else {
        SUCCESS
    }
}

/// Writes `text` to stdout. A reader that has gone (`| head -1`) has all
/// it wanted: a broken pipe is no error.
fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drive_health::collect::{report, Answers};
    use crate::tape::health::Snapshot;

    #[test]
    fn a_critical_flag_is_status_3_and_a_quiet_drive_0() {
        let mut full = sample::full_report();
        assert_eq!(status_of(&full), DRIVE_ALERT);
        full.tape_alerts.retain(|a| !a.critical);
        full.critical = false;
        assert_eq!(status_of(&full), SUCCESS);
    }

    #[test]
    fn a_drive_that_could_not_be_asked_is_status_1() {
        let answers = Answers {
            snapshot: Snapshot {
                unreadable: Some("the kernel refused SG_IO".into()),
                ..Snapshot::default()
            },
            ..Answers::default()
        };
        assert_eq!(status_of(&report("/dev/nst0", answers)), FAILURE);
    }

    #[test]
    fn the_json_is_one_line_with_every_top_level_field() {
        let line = serde_json::to_string(&sample::full_report()).unwrap();
        assert!(!line.contains('\n'));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        for field in [
            "schema",
            "version",
            "device",
            "identity",
            "state",
            "cartridge",
            "tape_alerts",
            "write_errors",
            "read_errors",
            "compression",
            "volume_statistics",
            "history",
            "unreadable",
            "critical",
        ] {
            assert!(v.get(field).is_some(), "no {field} in {line}");
        }
        assert_eq!(v["schema"], "tapebuf-drive");
        assert_eq!(v["tape_alerts"][0]["flag"], 20);
        assert_eq!(v["tape_alerts"][0]["critical"], true);
        assert_eq!(v["identity"]["serial"], "LABDRV01");
        assert_eq!(v["history"]["usual_capacity"][0]["medium"], "L6");
    }

    #[test]
    fn unknown_values_are_null_not_left_out() {
        let line = serde_json::to_string(&report("/dev/nst0", Answers::default())).unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        for field in [
            "identity",
            "cartridge",
            "write_errors",
            "history",
            "unreadable",
        ] {
            assert_eq!(v[field], serde_json::Value::Null, "{field}");
        }
        assert_eq!(v["state"]["cartridge"], serde_json::Value::Null);
        assert_eq!(v["critical"], false);
    }
}
