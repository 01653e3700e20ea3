//! Getting the cartridge of volume n into the drive and recognising it,
//! as a restore does. With a changer (`--changer`) its loader moves the
//! barcode the manifest recorded for volume n into the drive, leaving one
//! that is already there. Without one, a cartridge already in the drive
//! is tried first; the wrong one, or none, is asked for as a volume
//! change asks (the `-A` command, or the prompt on the terminal); with
//! neither, the run ends with one line naming the volume and its barcode.
//!
//! A cartridge is recognised by its volume's first record (the manifest's
//! fingerprint) and, where the manifest recorded it, the serial number in
//! its memory: the same data on another cartridge is not the one written.

use crossbeam_channel::never;

use super::tape_volumes::TapeVolumes;
use crate::base::console::{message, say};
use crate::manifest::Identity;
use crate::tape::health::{look, DriveCommands};
use crate::tape::{Access, Drive, TapeOp};
use crate::volume::load::{eject_refused, Change, Load, LoadFailed, MAX_REFUSALS};
use crate::volume::{ready, ChangeRequest, VolumeLog};

/// The drive as a volume change opens it.
struct Opening<'d> {
    drive: &'d mut dyn Drive,
}

impl Load for Opening<'_> {
    fn drive(&mut self) -> Option<&mut dyn Drive> {
        Some(&mut *self.drive)
    }

    fn open(&mut self) -> std::io::Result<()> {
        self.drive.reopen()
    }
}

impl TapeVolumes<'_> {
    /// Volume `n` in the drive, recognised, or why not in one line.
    pub(super) fn get_volume(&mut self, n: u32) -> Result<(), String> {
        if self.volume == Some(n) {
            return Ok(());
        }
        self.held = None;
        self.at = None;
        let mut refused: Option<String> = None;
        if self.volume.take().is_some() {
            // Another volume of the backup is in: it goes.
            self.unload();
            self.change(n, None)?;
        } else if !self.loaded_once {
            self.first_load(n)?;
        }
        self.loaded_once = true;
        for _ in 0..=MAX_REFUSALS {
            if let Some(why) = refused.take() {
                if self.policy.loader.is_some() {
                    return Err(self.needed(n, &why));
                }
                if !self.can_ask() {
                    let why = format!(
                        "{why}, and there is no -A/--change-command and no terminal to ask for another"
                    );
                    return Err(self.needed(n, &why));
                }
                self.unload();
                self.change(n, Some(&why))?;
            }
            match self.admit(n)? {
                None => {
                    self.volume = Some(n);
                    self.cost.volumes += 1;
                    return Ok(());
                }
                Some(why) => refused = Some(why),
            }
        }
        Err(self.needed(n, refused.as_deref().unwrap_or("refused")))
    }

    /// The first cartridge of the run: through the loader, or the one in
    /// the drive (waited for while it loads), or one asked for.
    fn first_load(&mut self, n: u32) -> Result<(), String> {
        if self.opened && self.policy.loader.is_none() {
            return Ok(());
        }
        if self.opened {
            let _ = self.drive.close();
            self.opened = false;
        }
        if self.policy.loader.is_some() {
            return self.change(n, None);
        }
        let name = self.drive.name().to_string();
        let mut status = (self.drive.status_unopened()).map_err(|e| format!("{name}: {e}"))?;
        if !status.ready() && !status.door_open && status.unusable.is_none() {
            let limit = self.policy.timeout.unwrap_or(ready::DEFAULT_TIMEOUT);
            if !self.quiet {
                say(&message!(
                    "{name}: the cartridge is still loading; waiting up to {} s for it (--change-timeout)",
                    limit.as_secs()
                ));
            }
            let log = VolumeLog::new(&name);
            status = ready::wait_until_ready(self.drive.as_mut(), n, limit, &never(), &log)
                .map_err(|why| self.needed(n, &why))?;
        }
        if status.ready() && status.unusable.is_none() {
            self.drive
                .reopen()
                .map_err(|e| format!("cannot open {name}: {e}"))?;
            self.opened = true;
            return Ok(());
        }
        if !self.can_ask() {
            let why = status
                .unusable
                .map_or("there is no cartridge in it".to_string(), |r| {
                    format!("the cartridge in it {r}")
                });
            return Err(self.needed(
                n,
                &format!(
                    "{why}, and there is no -A/--change-command and no terminal to ask for it"
                ),
            ));
        }
        self.change(n, None)
    }

    /// Whether a person or a command can bring another cartridge.
    fn can_ask(&self) -> bool {
        self.policy.command.is_some() || std::fs::File::open("/dev/tty").is_ok()
    }

    /// The line for volume `n` wanted and not got.
    fn needed(&self, n: u32, why: &str) -> String {
        let barcode = (self.manifest.volume(n))
            .and_then(|v| v.barcode.as_deref())
            .map_or(String::new(), |b| format!(" (barcode {b})"));
        format!(
            "volume {n}{barcode} is needed in {}: {why}",
            self.drive.name()
        )
    }

    /// Ejects the cartridge in the drive, open or not.
    fn unload(&mut self) {
        if self.opened {
            let _ = self.drive.op(TapeOp::Unload);
            let _ = self.drive.close();
            self.opened = false;
        } else {
            eject_refused(self.drive.as_mut());
        }
    }

    /// Volume `n` got in as a volume change gets one, and opened.
    fn change(&mut self, n: u32, refused: Option<&str>) -> Result<(), String> {
        if self.opened {
            let _ = self.drive.close();
            self.opened = false;
        }
        let device = self.drive.name().to_string();
        let request = ChangeRequest {
            access: Access::Read,
            device: &device,
            next_volume: n,
            finished_bytes: 0,
            refused,
        };
        let log = VolumeLog::new(&device);
        let change = Change {
            policy: &self.policy,
            swap: true,
            req: &request,
            stop: &never(),
            log: &log,
        };
        let loaded = change.load(&mut Opening {
            drive: self.drive.as_mut(),
        });
        match loaded {
            Ok(()) => {
                self.opened = true;
                Ok(())
            }
            Err(LoadFailed::Change(why)) => Err(self.needed(n, &why)),
            Err(LoadFailed::Open(e)) => Err(format!("cannot open {device}: {e}")),
        }
    }

    /// Reads volume `n`'s first record and checks it is that volume's,
    /// and the cartridge's serial number where one was recorded: None
    /// when it is, else why the cartridge is refused. Err when the tape
    /// could not be put at the volume's start: no other cartridge mends
    /// that.
    fn admit(&mut self, n: u32) -> Result<Option<String>, String> {
        // Seek to the volume's first block where the manifest has it and
        // the drive seeks; else the volume starts where the tape is.
        let seeks = self.first_block(n).is_some() && !self.seek_refused;
        self.at = if seeks { None } else { Some(0) };
        self.position(n, 0)?;
        let mut first = vec![0u8; self.record_bytes(n, 0)? as usize];
        if let Err(e) = self.read_record(n, 0, &mut first) {
            return Ok(Some(format!("its first record: {e}")));
        }
        let identity = self.manifest.identify(&first, n);
        if identity != Identity::Volume(n) {
            return Ok(Some(self.manifest.wrong_volume_line(
                &identity,
                n,
                "cartridge",
            )));
        }
        self.held = Some((n, 0, first));
        let recorded = (self.manifest.volume(n))
            .and_then(|v| v.health.as_ref())
            .and_then(|h| h.cartridge.as_ref())
            .and_then(|mam| mam.serial.clone());
        if let Some(recorded) = recorded {
            let loaded = look(&mut DriveCommands(self.drive.as_mut()))
                .mam
                .and_then(|m| m.serial);
            if let Some(loaded) = loaded.filter(|l| *l != recorded) {
                return Ok(Some(format!(
                    "this cartridge holds volume {n}'s data, but its serial number is {loaded}, and volume {n} was written on the one with serial number {recorded}"
                )));
            }
        }
        Ok(None)
    }
}
