//! A local tape drive as a volume medium, read or written: the one tape
//! open sequence both faces use. The drive, its block-mode check and the
//! records on the volume are kept here once; a face (`TapeFace`) adds
//! only its own state: `source/tape.rs` reads `LocalTape<Reading>`,
//! `sink/tape.rs` writes `LocalTape<Writing>`.
//!
//! Volume 1: the drive is opened the careful way (`first_load.rs`: a
//! cartridge is got in and waited for without st's blind open), its
//! logical block protection and encryption set (`safeguards.rs`, again at
//! every volume and off at every close), watched
//! for its health (`health::HealthWatch`, kept in `health`) and for a
//! cleaning request (`cleaning.rs`), and its block-mode notices go
//! to stderr unless `-q`. Each later volume, once the change put it in and
//! the loader waited for it to be ready (`next_volume.rs`, `load.rs`): the
//! device is opened again, a cartridge that is write-protected is refused
//! for writing, and the drive is put in variable-block mode if it was left
//! in fixed-block mode (`block_mode.rs`). The same check runs once more
//! before the volume's first read or write.

use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::tape::drive::block_mode::{self, ModeCheck, Notify};
use crate::tape::drive::cleaning::{CleanedBy, CleaningWatch};
use crate::tape::health::history::state_dir;
use crate::tape::health::{HealthLog, HealthWatch};
use crate::tape::{Access, Drive};
use crate::volume::first_load::open_tape;
use crate::volume::medium::{Medium, MediumKind};
use crate::volume::safeguards::Safeguards;
use crate::volume::ChangePolicy;

/// What a face keeps of its own beside the drive: `source::TapeReader`
/// reads with `LocalTape<Reading>`, `sink::TapeMedium` writes with
/// `LocalTape<Writing>`.
pub trait TapeFace: Send {
    /// Whether this face reads or writes.
    const ACCESS: Access;

    /// Called when a new volume is opened, before it is checked.
    fn new_volume(&mut self) {}
}

/// A local tape drive, read or written as the face `F` says.
pub struct LocalTape<F> {
    pub drive: Box<dyn Drive>,
    pub mode: ModeCheck,
    /// Records read or written on the volume in use.
    pub records: u64,
    /// What the face keeps.
    pub face: F,
    /// What the drive says of its health through the run, when it is
    /// watched (`health::HealthWatch`).
    pub health: Option<Arc<HealthLog>>,
}

impl<F: TapeFace> LocalTape<F> {
    /// `drive` is open for `F::ACCESS` with volume 1 loaded.
    pub fn with_face(drive: Box<dyn Drive>, face: F) -> LocalTape<F> {
        LocalTape {
            drive,
            mode: ModeCheck::default(),
            records: 0,
            face,
            health: None,
        }
    }

    /// Opens the tape drive at `path` for volume 1, a cartridge got in
    /// first (`first_load::open_tape`); None when `path` is not a tape
    /// drive. `quiet` keeps the notices off stderr.
    pub fn open(
        path: &Path,
        policy: &ChangePolicy,
        guards: &Safeguards,
        quiet: bool,
    ) -> io::Result<Option<LocalTape<F>>>
    where
        F: Default,
    {
        let Some(device) = open_tape(path, F::ACCESS, policy, quiet)? else {
            return Ok(None);
        };
        let by = match &policy.loader {
            None => CleanedBy::Person,
            Some(loader) if loader.settings().clean => CleanedBy::Library,
            Some(_) => CleanedBy::PersonInLibrary,
        };
        let log = HealthLog::new();
        let writing = F::ACCESS == Access::Write;
        let guarded = guards.wrap(Box::new(device), F::ACCESS, path)?;
        let health = HealthWatch::new(guarded, log.clone(), writing, state_dir());
        let watched = CleaningWatch::to_stderr(Box::new(health), by);
        let mut tape = LocalTape::with_face(Box::new(watched), F::default());
        tape.health = Some(log);
        Ok(Some(tape.with_notify(block_mode::notices(quiet))))
    }

    /// Sends the notices (a block-mode switch, a smaller read size) to
    /// `notify` instead of stderr.
    pub fn with_notify(mut self, notify: Notify) -> LocalTape<F> {
        self.mode = ModeCheck::new(notify);
        self
    }

    /// Before a read or write: the block mode, checked once a volume.
    pub fn check_mode(&mut self) -> io::Result<()> {
        self.mode.check_once(self.drive.as_mut())
    }
}

impl<F: TapeFace> Medium for LocalTape<F> {
    fn kind(&self) -> MediumKind {
        MediumKind::Tape
    }

    fn volume_name(&self, _n: u32) -> String {
        self.drive.name().to_string()
    }

    fn open_volume(&mut self, _n: u32) -> io::Result<()> {
        self.drive.reopen()?;
        self.records = 0;
        self.face.new_volume();
        if F::ACCESS == Access::Write && self.drive.status()?.write_protected {
            return Err(io::Error::other("the tape is write-protected"));
        }
        self.mode.check(self.drive.as_mut())
    }

    fn drive(&mut self) -> Option<&mut dyn Drive> {
        Some(self.drive.as_mut())
    }
}
