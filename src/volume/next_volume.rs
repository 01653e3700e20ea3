//! One volume change from beginning to end, as reading and writing both
//! make it: the volume in use is ended (a tape that is swapped is ejected
//! first), the next one is got in (the change command or the prompt,
//! `change.rs`), a tape drive is waited for and the volume opened
//! (`load.rs`). Only the ending itself is the caller's: a written volume
//! gets its trailer and perhaps a read-back, a read one is closed.

use std::io;

use crossbeam_channel::Receiver;

use crate::tape::{Access, AtEnd, Drive};
use crate::volume::load::{Change, Load, LoadFailed};
use crate::volume::medium::Medium;
use crate::volume::{ChangePolicy, ChangeRequest, VolumeLog};

/// A medium as the loader opens it.
struct Opening<'m, M: ?Sized> {
    medium: &'m mut M,
    volume: u32,
}

impl<M: Medium + ?Sized> Load for Opening<'_, M> {
    fn drive(&mut self) -> Option<&mut dyn Drive> {
        self.medium.drive()
    }

    fn open(&mut self) -> io::Result<()> {
        self.medium.open_volume(self.volume)
    }
}

/// Why the next volume is not open.
#[derive(Debug)]
pub enum ChangeFailed {
    /// Ending the volume in use failed: nothing was asked for.
    Ending(io::Error),
    /// The change, the wait or the refusals: why, in words.
    Change(String),
    /// Opening the next volume failed; the error says which and where.
    Open(io::Error),
}

/// One volume change: what is wanted, and how.
pub struct NextVolume<'a> {
    pub access: Access,
    pub policy: &'a ChangePolicy,
    /// The number of the volume wanted.
    pub next: u32,
    /// Bytes on the volume being finished.
    pub finished_bytes: u64,
    /// Why the volume in use is given back, when it was refused.
    pub refused: Option<&'a str>,
    pub stop: &'a Receiver<()>,
    pub log: &'a VolumeLog,
}

impl NextVolume<'_> {
    /// Ends the volume in use with `end`, gets volume `next` in and opens
    /// it; returns the device or file it is on.
    pub fn change<M: Medium + ?Sized>(
        &self,
        medium: &mut M,
        end: impl FnOnce(&mut M, AtEnd) -> io::Result<()>,
    ) -> Result<String, ChangeFailed> {
        let swap =
            medium.needs_swap() || self.policy.command.is_some() || self.policy.loader.is_some();
        let then = if swap && medium.kind().is_tape() {
            AtEnd::Eject
        } else {
            AtEnd::Stay
        };
        end(medium, then).map_err(ChangeFailed::Ending)?;
        let device = medium.volume_name(self.next);
        let request = ChangeRequest {
            access: self.access,
            device: &device,
            next_volume: self.next,
            finished_bytes: self.finished_bytes,
            refused: self.refused,
        };
        let change = Change {
            policy: self.policy,
            swap,
            req: &request,
            stop: self.stop,
            log: self.log,
        };
        let mut opening = Opening {
            medium,
            volume: self.next,
        };
        change.load(&mut opening).map_err(|failed| match failed {
            LoadFailed::Change(why) => ChangeFailed::Change(why),
            LoadFailed::Open(e) => ChangeFailed::Open(io::Error::new(
                e.kind(),
                format!("cannot open volume {} ({device}): {e}", self.next),
            )),
        })?;
        Ok(device)
    }
}
