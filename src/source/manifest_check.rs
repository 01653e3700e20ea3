//! Reading volumes against a manifest: a restore with `--manifest` and
//! `tapebuf verify`. [`CheckedMedium`] wraps the medium of any volume
//! input (a tape drive, file volumes, an rmt reader), so the check is the
//! same for all of them.
//!
//! The invariant it keeps: no byte of a volume is handed on before its
//! first bytes were read ahead and recognised as the volume expected (and
//! its cartridge's serial number, where read, as the one recorded). A
//! tape's first record is read whole (a fingerprint never goes past it);
//! from a file or rmt, reading goes on until the longest fingerprint in
//! the manifest is covered or the volume ends. Only then is the volume
//! admitted, or refused in the manifest's words ("this is volume 3 of the
//! backup, volume 2 was expected").
//!
//! After that every byte goes through `manifest::Checker`, by record on a
//! local tape, else as data. A restore fails at the first difference,
//! holding back the read that showed it; the bytes already passed on
//! cannot be called back, so the run ends unclean. `tapebuf verify` (with
//! a `report`) says each volume's result and goes on with the next.
//!
//! Admitting a volume (reading ahead, recognising it, and its
//! cartridge's serial number) is in `manifest_admit.rs`.

use std::io;
use std::sync::Arc;
use std::time::Instant;

use super::volumes::{Got, ReadMedium, ReadVolumes, VolumeSource};
use crate::hash::HashAlg;
use crate::manifest::{Checker, Manifest};
use crate::tape::{AtEnd, Drive};
use crate::volume::{Medium, MediumKind, Trailer};

/// What the check of one volume found.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub volume: u32,
    /// The device or file it was read from.
    pub name: String,
    /// The bytes read and compared.
    pub bytes: u64,
    pub seconds: f64,
    /// None when it matched; else what differs, in words.
    pub problem: Option<String>,
}

/// Where `tapebuf verify` hears of each volume.
pub type Report = Box<dyn FnMut(&Outcome) + Send>;

/// What to check the input against, and how.
pub struct Check {
    pub manifest: Arc<Manifest>,
    /// A tape's first record is read ahead into a buffer this large.
    pub block_bytes: usize,
    /// With a report (verify), a bad volume is reported and the next one
    /// read; without (a restore), it fails the read.
    pub report: Option<Report>,
}

/// The volumes of `medium` as one source, checked when `check` says so:
/// then the manifest says how many volumes there are and their size, and
/// verify (a check with a report) asks again for a refused volume.
pub fn checked_source(
    medium: Box<dyn ReadMedium>,
    name: &str,
    mut plan: ReadVolumes,
    check: Option<Check>,
) -> VolumeSource {
    let Some(check) = check else {
        return VolumeSource::new(medium, name, plan);
    };
    plan.count = Some(check.manifest.volumes.len() as u32);
    let (size, manifest) = (check.manifest.stream.bytes, Arc::clone(&check.manifest));
    let ask_again = check.report.is_some();
    VolumeSource::new(Box::new(CheckedMedium::new(medium, check)), name, plan)
        .with_size(Some(size))
        .asking_again(ask_again)
        .with_manifest(&manifest, !ask_again)
}

/// The volume in use, as far as the check has got.
enum State {
    /// Open; nothing read yet.
    Unread,
    /// Its first bytes are not the volume expected: why.
    Refused(String),
    /// Admitted and being compared.
    Passing,
    /// Done with (verify: reported bad); the rest is not read.
    Skipping,
}

/// A volume input whose every volume is checked against a manifest.
pub struct CheckedMedium {
    inner: Box<dyn ReadMedium>,
    check: Check,
    alg: HashAlg,
    volume: u32,
    state: State,
    checker: Option<Checker>,
    /// The bytes read ahead, how many were handed on, and whether the
    /// volume ended behind them.
    ahead: Vec<u8>,
    given: usize,
    ended: bool,
    /// The inner medium reached the end of the volume's data, so what
    /// follows is its trailer (a volume left part-read has none to read),
    /// and whether the check found the volume bad (then it has told).
    inner_ended: bool,
    failed_check: bool,
    started: Instant,
}

impl CheckedMedium {
    /// `inner` has volume 1 open.
    pub fn new(inner: Box<dyn ReadMedium>, check: Check) -> CheckedMedium {
        let alg = HashAlg::from_name(&check.manifest.digest_algorithm).unwrap_or(HashAlg::Xxh3);
        CheckedMedium {
            inner,
            check,
            alg,
            volume: 1,
            state: State::Unread,
            checker: None,
            ahead: Vec::new(),
            given: 0,
            ended: false,
            inner_ended: false,
            failed_check: false,
            started: Instant::now(),
        }
    }

    /// Compares the volume's next bytes: a whole record on a local tape.
    fn feed(&self, checker: &mut Checker, data: &[u8]) {
        match self.inner.kind().whole_records() {
            true if !data.is_empty() => checker.record(data),
            true => {}
            false => checker.data(data),
        }
    }

    /// The volume's result: verify hears of it; a restore fails on a bad
    /// one. Either way the rest of the volume is not read.
    fn outcome(&mut self, bytes: u64, problem: Option<String>) -> io::Result<Got> {
        self.state = State::Skipping;
        self.checker = None;
        self.failed_check = problem.is_some();
        let name = self.inner.volume_name(self.volume);
        let outcome = Outcome {
            volume: self.volume,
            name: name.clone(),
            bytes,
            seconds: self.started.elapsed().as_secs_f64(),
            problem,
        };
        if let Some(report) = self.check.report.as_mut() {
            report(&outcome);
            return Ok(Got::EndOfVolume);
        }
        match outcome.problem {
            Some(why) => Err(io::Error::other(format!(
                "volume {} ({name}): {why}",
                self.volume
            ))),
            None => Ok(Got::EndOfVolume),
        }
    }

    /// The comparison's end: at the end of the volume, or once it failed.
    fn finish(&mut self) -> io::Result<Got> {
        let Some(checker) = self.checker.take() else {
            return Ok(Got::EndOfVolume);
        };
        let bytes = checker.bytes();
        let problem = checker.finish().map(|p| p.describe());
        self.outcome(bytes, problem)
    }

    /// Hands on bytes read ahead: a tape record whole, or not at all into
    /// a block that has no room left for it.
    fn give_ahead(&mut self, buf: &mut [u8]) -> Option<Got> {
        let left = &self.ahead[self.given..];
        if left.is_empty() {
            return None;
        }
        if self.inner.kind().whole_records() && left.len() > buf.len() {
            return Some(Got::BlockDone);
        }
        let n = left.len().min(buf.len());
        buf[..n].copy_from_slice(&left[..n]);
        self.given += n;
        Some(Got::Bytes(n))
    }

    fn failed(&self) -> bool {
        self.checker.as_ref().is_some_and(Checker::failed)
    }
}

impl ReadMedium for CheckedMedium {
    fn read(&mut self, buf: &mut [u8], fresh: bool) -> io::Result<Got> {
        let len = buf.len();
        self.read_in(buf, len, fresh)
    }

    fn read_in(&mut self, buf: &mut [u8], len: usize, fresh: bool) -> io::Result<Got> {
        if let State::Unread = self.state {
            self.admit()?;
        }
        match &self.state {
            State::Refused(why) => {
                let why = match self.check.report {
                    Some(_) => why.clone(),
                    None => format!("{why}; nothing of it was passed on"),
                };
                return self.outcome(0, Some(why));
            }
            State::Skipping => return Ok(Got::EndOfVolume),
            State::Unread | State::Passing => {}
        }
        if self.failed() {
            return self.finish();
        }
        if let Some(got) = self.give_ahead(&mut buf[..len]) {
            return Ok(got);
        }
        if self.ended {
            return self.finish();
        }
        match self.inner.read_in(buf, len, fresh)? {
            Got::Bytes(n) => {
                let mut checker = self.checker.take();
                if let Some(c) = checker.as_mut() {
                    self.feed(c, &buf[..n]);
                }
                self.checker = checker;
                // A read that shows a difference is held back.
                match self.failed() {
                    true => self.finish(),
                    false => Ok(Got::Bytes(n)),
                }
            }
            Got::EndOfVolume => {
                self.inner_ended = true;
                self.finish()
            }
            Got::BlockDone => Ok(Got::BlockDone),
        }
    }

    fn room_after_record(&self) -> usize {
        self.inner.room_after_record()
    }

    fn end_volume(&mut self, then: AtEnd) -> io::Result<()> {
        self.inner.end_volume(then)
    }

    fn read_trailer(&mut self) -> io::Result<Option<Trailer>> {
        match self.inner_ended && !self.failed_check {
            true => self.inner.read_trailer(),
            false => Ok(None),
        }
    }

    fn refuse(&mut self) -> io::Result<Option<String>> {
        if let State::Unread = self.state {
            self.admit()?;
        }
        Ok(match &self.state {
            State::Refused(why) => Some(why.clone()),
            _ => None,
        })
    }

    fn volume_exists(&self, n: u32) -> bool {
        self.inner.volume_exists(n)
    }

    fn trailer_unread(&self) -> bool {
        !self.inner_ended || self.failed_check
    }

    fn read_by_tapebuf(&self) -> &'static str {
        "is checked against --manifest as it is read"
    }

    fn note(&self) -> Option<String> {
        self.inner.note()
    }
}

impl Medium for CheckedMedium {
    fn kind(&self) -> MediumKind {
        self.inner.kind()
    }

    fn open_volume(&mut self, n: u32) -> io::Result<()> {
        self.inner.open_volume(n)?;
        self.inner_ended = false;
        self.failed_check = false;
        self.volume = n;
        self.state = State::Unread;
        self.checker = None;
        Ok(())
    }

    fn volume_name(&self, n: u32) -> String {
        self.inner.volume_name(n)
    }

    fn drive(&mut self) -> Option<&mut dyn Drive> {
        self.inner.drive()
    }
}

#[path = "manifest_admit.rs"]
mod admit;
