//! Admitting a volume read against a manifest (the invariant is in
//! `manifest_check.rs`'s header): its first bytes are read ahead, a
//! tape's first record whole, else the longest fingerprint's worth; the
//! volume is recognised by them as the one expected, and its cartridge's
//! serial number, where read, as the one recorded. Only then is it
//! compared, or else refused in the manifest's words.

use std::io;
use std::time::Instant;

use super::{CheckedMedium, State};
use crate::manifest::{Checker, Identity};
use crate::source::volumes::Got;

impl CheckedMedium {
    /// The most bytes read ahead from a file or rmt: the longest
    /// fingerprint of the backup.
    fn ahead_bytes(&self) -> usize {
        let volumes = self.check.manifest.volumes.iter();
        let longest = volumes.map(|v| v.fingerprint.bytes as usize).max();
        longest.unwrap_or(0).max(1)
    }

    /// Reads the volume's first bytes ahead and decides whether it is the
    /// one expected.
    pub(super) fn admit(&mut self) -> io::Result<()> {
        self.started = Instant::now();
        self.read_ahead()?;
        let manifest = &self.check.manifest;
        let Some(expected) = manifest.volume(self.volume) else {
            let why = format!(
                "the backup has {} volume(s), so there is no volume {}",
                manifest.volumes.len(),
                self.volume
            );
            self.state = State::Refused(why);
            return Ok(());
        };
        let identity = manifest.identify(&self.ahead, self.volume);
        if identity != Identity::Volume(self.volume) {
            let what = if self.inner.kind().is_tape() {
                "cartridge"
            } else {
                "volume"
            };
            let mut why = manifest.wrong_volume_line(&identity, self.volume, what);
            if identity == Identity::Stranger {
                let first = expected.fingerprint.bytes;
                why += &format!(" (or its first {first} bytes are damaged)");
            }
            self.state = State::Refused(why);
            return Ok(());
        }
        let recorded = (expected.health.as_ref().and_then(|h| h.cartridge.as_ref()))
            .and_then(|mam| mam.serial.clone());
        let expected = expected.clone();
        if let Some(why) = self.serial_differs(recorded) {
            self.state = State::Refused(why);
            return Ok(());
        }
        self.say_without_protection(expected.lbp.as_deref());
        let mut checker = Checker::new(expected, self.alg, None);
        let ahead = std::mem::take(&mut self.ahead);
        self.feed(&mut checker, &ahead);
        self.ahead = ahead;
        self.checker = Some(checker);
        self.state = State::Passing;
        Ok(())
    }

    /// A volume written with logical block protection, read on a drive
    /// without it: said once per volume, since its blocks are now checked
    /// by the manifest's digests alone.
    fn say_without_protection(&mut self, written_with: Option<&str>) {
        let Some(method) = written_with else {
            return;
        };
        let n = self.volume;
        let Some(drive) = self.inner.drive() else {
            return;
        };
        if drive.protection().method.is_some() {
            return;
        }
        let why = drive.protection().why_none.unwrap_or_default();
        crate::base::console::say(&crate::base::console::message!(
            "{}: volume {n} was written with logical block protection ({method}), which this drive does not check now ({why}); its blocks are checked against the manifest's digests instead",
            drive.name()
        ));
    }

    /// The loaded cartridge's serial number (its memory, on a local drive
    /// whose health is read) against the one the manifest recorded: the
    /// same data on another cartridge is not the one written.
    fn serial_differs(&mut self, recorded: Option<String>) -> Option<String> {
        let recorded = recorded?;
        let (loaded, n) = (self.inner.drive()?.cartridge_serial()?, self.volume);
        (loaded != recorded).then(|| {
            format!(
                "this cartridge holds volume {n}'s data, but its serial number is {loaded}, and \
                 volume {n} was written on the cartridge with serial number {recorded} (a copy, \
                 or another backup of the same data)"
            )
        })
    }

    /// Reads the first record of a tape, or the first fingerprint's worth
    /// of a file, into `ahead`.
    fn read_ahead(&mut self) -> io::Result<()> {
        let tape = self.inner.kind().whole_records();
        let want = if tape {
            self.check.block_bytes
        } else {
            self.ahead_bytes()
        };
        self.ahead = vec![0u8; want];
        self.given = 0;
        self.ended = false;
        let mut got = 0;
        while got < want {
            match self.inner.read(&mut self.ahead[got..], got == 0) {
                Ok(Got::Bytes(n)) => got += n,
                Ok(Got::EndOfVolume) => {
                    self.ended = true;
                    self.inner_ended = true;
                    break;
                }
                Ok(Got::BlockDone) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            if tape {
                break;
            }
        }
        self.ahead.truncate(got);
        Ok(())
    }
}
