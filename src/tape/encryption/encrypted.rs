//! A drive that encrypts: the wrapper that sets the drive's key before
//! the first block of every volume and clears it when the device is
//! closed or the wrapper dropped (an error on the way out, a signal's
//! unwinding), so that no key is left in a drive after tapebuf.
//!
//! Writing (`--encrypt-key`): the drive must offer AES-256-GCM in
//! hardware for the cartridge loaded, or the run is refused before a
//! block is written. Every block is encrypted, the key's fingerprint
//! going with it as the U-KAD, and read back the same way by `--verify`
//! (decryption mixed, so that the filemark after the data reads too).
//!
//! Reading: before the first block of every volume, and after every
//! move, the drive is asked how the block there is encrypted. A plain
//! block is read as it is. An encrypted one names its key's fingerprint;
//! the key is looked for (`Keying::find`), set for decryption (encrypted
//! and plain blocks both read), and the drive asked again: one it still
//! cannot read with that key is refused as the wrong key before any byte
//! is passed on. A key that is nowhere is refused naming the fingerprint
//! and the cartridge's barcode. A drive that cannot tell before reading
//! (status "unable to determine", as a drive may after a move) gets
//! `--encrypt-key` if given; when it refuses that first read and the tape
//! did not move, the key the block names is found and set as above and
//! the block read again; otherwise the refusal is said with what the
//! drive then says of the block.

use std::io;

use super::key_dir::Keying;
use super::refusal::KeyRefused;
use super::setup;
use crate::base::console::{message, say};
use crate::keys::tape_key::{KeyPrint, TapeKey};
use crate::tape::drive::{pass_on, Access, Drive, Protection, TapeOp};
use crate::tape::scsi::pages::encryption::Mode;
use crate::tape::scsi::pages::encryption_status::{BlockState, NextBlock};

/// A drive whose blocks are encrypted with a key tapebuf sets.
pub struct Encrypted {
    drive: Box<dyn Drive>,
    keying: Keying,
    access: Access,
    /// The drive's algorithm index, asked once (writing: from the
    /// capabilities checked; reading: at the first key set).
    index: Option<u8>,
    /// A key is in the drive now, which close and drop clear.
    set_in_drive: bool,
    /// The key of the volume opened last.
    used: Option<KeyPrint>,
    /// The volume opened last was encrypted or decrypted with a key that
    /// was in the drive before this run: what it names
    /// (`Protection::key_left`).
    left: Option<String>,
    /// The warning that the drive encrypts with such a key was given.
    warned: bool,
    /// Reading: the block at the position is yet to be asked about.
    unchecked: bool,
    /// Reading: the drive could not tell how the block at the position
    /// is encrypted before reading it; a refused first read is asked
    /// about again.
    blind: bool,
}

/// A key by the U-KAD its blocks carry, when that is no tapebuf
/// fingerprint: "a key it names \"…\"", or "a key it does not name".
fn named(ukad: Option<&[u8]>) -> String {
    match ukad {
        Some(u) => format!(
            "a key it names \"{}\"",
            String::from_utf8_lossy(u).escape_debug()
        ),
        None => "a key it does not name".into(),
    }
}

fn refused(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

impl Encrypted {
    /// Wraps the open `drive`; writing with `--encrypt-key`, sets its key.
    pub fn new(drive: Box<dyn Drive>, keying: Keying, access: Access) -> io::Result<Encrypted> {
        let mut e = Encrypted {
            drive,
            keying,
            access,
            index: None,
            set_in_drive: false,
            used: None,
            left: None,
            warned: false,
            unchecked: access == Access::Read,
            blind: false,
        };
        e.begin_volume()?;
        Ok(e)
    }

    /// Writing: the key set for the volume now in the drive.
    fn begin_volume(&mut self) -> io::Result<()> {
        self.unchecked = self.access == Access::Read;
        self.left = None;
        if self.access == Access::Read {
            self.used = None;
        }
        if self.access != Access::Write {
            return Ok(());
        }
        let Some(key) = self.keying.key.clone() else {
            self.note_key_left();
            return Ok(());
        };
        let aes = setup::writing_algorithm(self.drive.as_mut())
            .map_err(|why| refused(format!("--encrypt-key: {why}; nothing was written")))?;
        self.index = Some(aes.index);
        // Decryption mixed, not on: `--verify` reads the volume back
        // through its filemark, and a drive with decryption on may refuse
        // to read anything not encrypted, a filemark included (mhvtl does).
        self.set_key(Mode::On, Mode::Mixed, &key)?;
        let now = setup::status(self.drive.as_mut())
            .map_err(|e| refused(format!("--encrypt-key: reading its encryption status: {e}")))?;
        if now.encrypt != Mode::On as u8 {
            self.clear()?;
            return Err(refused(format!(
                "--encrypt-key: the drive took the key but says it {}; nothing was written",
                Mode::describe(now.encrypt, true)
            )));
        }
        self.used = Some(key.print());
        Ok(())
    }

    /// Writing without `--encrypt-key`: a drive that encrypts anyway, with
    /// a key another program set (stenc) or a run killed before it could
    /// clear its own, is left as it is, since that may be what its owner
    /// wants; but the backup is said to be encrypted, once on stderr and
    /// in the summary, with the key's fingerprint where it has one.
    fn note_key_left(&mut self) {
        let Ok(now) = setup::status(self.drive.as_mut()) else {
            return; // a drive without the page, or beyond SCSI
        };
        if now.encrypt != Mode::On as u8 {
            self.used = None;
            return;
        }
        let what = self.key_left(now.ukad.as_deref());
        if !std::mem::replace(&mut self.warned, true) {
            let name = self.drive.name().to_string();
            say(&message!(
                "{name}: warning: the drive encrypts every block with {what}, which was in it before this run: reading this backup needs that key (tapebuf drive {name} --clear-key clears it)"
            ));
        }
    }

    /// Notes that the volume is encrypted or decrypted with a key that was
    /// in the drive before, whose U-KAD is `ukad`: what it names.
    fn key_left(&mut self, ukad: Option<&[u8]>) -> String {
        let print = ukad.and_then(KeyPrint::from_ukad);
        let what = match print {
            Some(print) => format!("key {print}"),
            None => named(ukad),
        };
        self.used = print;
        self.left = Some(what.clone());
        what
    }

    /// The drive's algorithm index, asked the first time it is needed.
    fn index(&mut self) -> u8 {
        match self.index {
            Some(index) => index,
            None => *self.index.insert(setup::reading_index(self.drive.as_mut())),
        }
    }

    fn set_key(&mut self, encrypt: Mode, decrypt: Mode, key: &TapeKey) -> io::Result<()> {
        let index = self.index();
        setup::set(self.drive.as_mut(), encrypt, decrypt, index, Some(key))
            .map_err(|e| refused(format!("setting the drive's key {}: {e}", key.print())))?;
        self.set_in_drive = true;
        Ok(())
    }

    /// Clears the key, if one was set.
    fn clear(&mut self) -> io::Result<()> {
        if !std::mem::replace(&mut self.set_in_drive, false) {
            return Ok(());
        }
        let index = self.index();
        setup::clear(self.drive.as_mut(), index).map_err(|e| {
            refused(format!(
                "clearing the drive's key: {e}; the key stays in the drive until it is cleared (tapebuf drive DEV --clear-key)"
            ))
        })
    }

    /// Reading: the key for the block at the position, set before it is
    /// read; an error when it cannot be read.
    fn prepare_read(&mut self) -> io::Result<()> {
        let next = match setup::next_block(self.drive.as_mut()) {
            Ok(next) => next,
            // A drive without the page, or beyond SCSI: plain blocks.
            Err(_) => {
                self.unchecked = false;
                return Ok(());
            }
        };
        match next.state {
            BlockState::NotABlock => Ok(()),
            BlockState::Plain => {
                self.unchecked = false;
                Ok(())
            }
            BlockState::Unknown => {
                self.unchecked = false;
                self.blind = true;
                match self.keying.key.clone() {
                    Some(key) => self.set_key(Mode::Disable, Mode::Mixed, &key),
                    None => Ok(()),
                }
            }
            _ => {
                self.unchecked = false;
                self.take_key_for(&next)
            }
        }
    }

    /// Sets the key block `next` needs and checks the drive can read it.
    fn take_key_for(&mut self, next: &NextBlock) -> io::Result<()> {
        let print = next.ukad.as_deref().and_then(KeyPrint::from_ukad);
        let found = match (print, &self.keying.key) {
            (Some(print), _) => {
                (self.keying.find(print)).map_err(|why| (format!("key {print}"), why))
            }
            (None, Some(key)) => Ok((key.clone(), "--encrypt-key".into())),
            (None, None) => {
                let named = match next.ukad {
                    Some(_) => format!(
                        "{}, which is no tapebuf fingerprint",
                        named(next.ukad.as_deref())
                    ),
                    None => named(None),
                };
                Err((named, "give its key with --encrypt-key FILE".into()))
            }
        };
        let (key, from) = match found {
            Ok(found) => found,
            // The drive holds a key that reads it, set before this run
            // (stenc's): read with that.
            Err(_) if next.state == BlockState::Readable && !self.set_in_drive => {
                self.key_left(next.ukad.as_deref());
                return Ok(());
            }
            Err((named, why)) => return Err(self.missing(next, &named, &why)),
        };
        self.set_key(Mode::Disable, Mode::Mixed, &key)?;
        let after = setup::next_block(self.drive.as_mut())
            .map_err(|e| refused(format!("reading its next block encryption status: {e}")))?;
        if after.state == BlockState::KeyNeeded || after.state == BlockState::Unsupported {
            self.clear()?;
            let cartridge = self.cartridge();
            return Err(KeyRefused(format!(
                "block {} of {cartridge} is encrypted with another key than {} from {from}: the drive cannot decrypt it with that key; nothing of it was passed on",
                next.block,
                key.print()
            ))
            .into());
        }
        self.used = Some(key.print());
        Ok(())
    }

    /// The error for block `next`, which needs the key `named`, that
    /// could not be had because `why`.
    fn missing(&mut self, next: &NextBlock, named: &str, why: &str) -> io::Error {
        let cartridge = self.cartridge();
        KeyRefused(format!(
            "block {} of {cartridge} is encrypted with {named}: {why}; nothing of it was passed on",
            next.block
        ))
        .into()
    }

    /// "cartridge E01010L6", by the barcode in its memory.
    fn cartridge(&mut self) -> String {
        match setup::barcode(self.drive.as_mut()) {
            Some(code) => format!("cartridge {code}"),
            None => "the cartridge (no barcode in its memory)".into(),
        }
    }

    /// A read the drive refused (EIO): when it is an encrypted block the
    /// drive could not tell of before (`blind`) and the tape did not move
    /// (`before` is where it stood), the key it names is set and the
    /// block read again; otherwise the refusal is said with what the
    /// drive's status now says.
    fn refused_read(
        &mut self,
        e: io::Error,
        buf: &mut [u8],
        len: usize,
        before: Option<u64>,
    ) -> io::Result<usize> {
        let next = match setup::next_block(self.drive.as_mut()) {
            Ok(next) if next.state.encrypted() => next,
            _ => return Err(e),
        };
        let unmoved = before.is_some() && self.drive.position().ok() == before;
        if unmoved && next.state == BlockState::KeyNeeded {
            self.take_key_for(&next)?;
            return self.drive.read_record_in(buf, len);
        }
        let named = (next.ukad.as_deref())
            .and_then(KeyPrint::from_ukad)
            .map_or("a key tapebuf did not write".into(), |p| format!("key {p}"));
        let why = format!("the drive could not decrypt it ({e})");
        Err(self.missing(&next, &named, &why))
    }
}

impl Drive for Encrypted {
    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = buf.len();
        self.read_record_in(buf, len)
    }

    fn read_record_in(&mut self, buf: &mut [u8], len: usize) -> io::Result<usize> {
        if self.unchecked {
            self.prepare_read()?;
        }
        let blind = std::mem::replace(&mut self.blind, false);
        let before = if blind {
            self.drive.position().ok()
        } else {
            None
        };
        match self.drive.read_record_in(buf, len) {
            Ok(n) => {
                if n == 0 && self.access == Access::Read {
                    // Past a filemark the next file may have another key.
                    self.unchecked = true;
                }
                Ok(n)
            }
            Err(e) if e.raw_os_error() == Some(libc::EIO) && self.access == Access::Read => {
                self.refused_read(e, buf, len, before)
            }
            Err(e) => Err(e),
        }
    }

    fn op(&mut self, op: TapeOp) -> io::Result<()> {
        let moved = !matches!(op, TapeOp::SetBlockBytes(_) | TapeOp::WriteFilemarks(_));
        self.drive.op(op)?;
        if moved && self.access == Access::Read {
            self.unchecked = true;
        }
        Ok(())
    }

    fn close(&mut self) -> io::Result<()> {
        let cleared = self.clear();
        self.drive.close()?;
        cleared
    }

    fn reopen(&mut self) -> io::Result<()> {
        self.drive.reopen()?;
        self.begin_volume()
    }

    fn protection(&self) -> Protection {
        Protection {
            key: self.used,
            key_left: self.left.clone(),
            ..self.drive.protection()
        }
    }

    pass_on!(drive: write_record, write_record_in, status, name, transfer_limits,
        status_unopened, eject_unopened, tape_alerts, scsi_command, cartridge_serial, position,
        ready_poll_interval, cleaned, drop_protection);
}

impl Drop for Encrypted {
    /// A run that ends without closing still leaves no key in the drive.
    fn drop(&mut self) {
        let _ = self.clear();
    }
}
