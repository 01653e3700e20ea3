//! A drive left in fixed-block mode, put back in variable-block mode.
//!
//! tapebuf writes one record per block and reads records of whatever size
//! the tape holds, which is Linux st's variable-block mode. An earlier
//! `mt setblk 512`, or a `defblksize` in st's options, leaves a drive in
//! fixed-block mode, where a write must be a multiple of the block size
//! (st cuts it into blocks, and refuses a short last one with EINVAL) and
//! a read of a larger record fails with EIO. A `setblk` lasts until a new
//! cartridge is loaded, where st applies `defblksize` again, so this check
//! runs after every open of every volume, for input and output alike. The
//! invariant: tapebuf reads or writes a volume only once the drive reports
//! variable-block mode, or not at all.

use crate::base::console::message;
use std::io;

use crate::tape::drive::{Drive, TapeOp};

/// Where a tape medium's one-line notices go: stderr, or a test's list.
pub type Notify = Box<dyn Fn(&str) + Send>;

/// Notices to stderr.
pub fn to_stderr() -> Notify {
    Box::new(crate::base::console::say)
}

/// Notices to stderr, or nowhere with `-q`: they say what tapebuf did
/// about the drive (a mode switch, a smaller read), not that data is at
/// risk, so a quiet cron job prints nothing for them.
pub fn notices(quiet: bool) -> Notify {
    match quiet {
        true => Box::new(|_: &str| {}),
        false => to_stderr(),
    }
}

/// The check, once per volume, as a tape medium runs it: before the first
/// read or write of volume 1, and right after opening every later one.
pub struct ModeCheck {
    notify: Notify,
    /// The volume in use was checked.
    checked: bool,
}

impl Default for ModeCheck {
    fn default() -> ModeCheck {
        ModeCheck::new(to_stderr())
    }
}

impl ModeCheck {
    pub fn new(notify: Notify) -> ModeCheck {
        ModeCheck {
            notify,
            checked: false,
        }
    }

    /// Checks `drive` now (a volume was just opened).
    pub fn check(&mut self, drive: &mut dyn Drive) -> io::Result<()> {
        if let Some(line) = ensure_variable(drive)? {
            self.say(&line);
        }
        self.checked = true;
        Ok(())
    }

    /// Checks `drive` unless the volume in use was checked already.
    pub fn check_once(&mut self, drive: &mut dyn Drive) -> io::Result<()> {
        match self.checked {
            true => Ok(()),
            false => self.check(drive),
        }
    }

    /// Passes one notice on.
    pub fn say(&self, line: &str) {
        (self.notify)(line);
    }
}

/// Switches `drive` to variable-block mode if it reports a fixed block
/// size. Returns the line to tell the user, if it switched; fails, with the
/// fix in the message, if the drive refuses or stays in fixed mode.
pub fn ensure_variable(drive: &mut dyn Drive) -> io::Result<Option<String>> {
    let block = drive.status()?.fixed_block_bytes;
    if block == 0 {
        return Ok(None);
    }
    let name = drive.name().to_string();
    let refuse = |why: String| {
        io::Error::other(format!(
            "the drive is in fixed-block mode ({block}-byte blocks) and {why}; tapebuf needs variable-block mode: run 'mt -f {name} setblk 0' and try again"
        ))
    };
    drive
        .op(TapeOp::SetBlockBytes(0))
        .map_err(|e| refuse(format!("refused variable-block mode (MTSETBLK 0: {e})")))?;
    let now = drive.status()?.fixed_block_bytes;
    if now != 0 {
        return Err(refuse(format!(
            "still reports {now}-byte blocks after MTSETBLK 0"
        )));
    }
    Ok(Some(message!(
        "{name}: the drive was in fixed-block mode ({block}-byte blocks); switched it to variable-block mode (mt setblk 0), so each block is one record"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape::emulated::{Cartridge, Emulated};

    #[test]
    fn a_drive_in_fixed_mode_is_switched_and_the_switch_is_told() {
        let (mut d, shelf) = Emulated::new("/dev/nst0", vec![Cartridge::blank(1 << 20, 0)]);
        assert_eq!(ensure_variable(&mut d).unwrap(), None);
        shelf.lock().unwrap().block_bytes = 512;
        let told = ensure_variable(&mut d).unwrap().unwrap();
        assert!(
            told.contains("fixed-block mode (512-byte blocks)"),
            "{told}"
        );
        assert_eq!(d.status().unwrap().fixed_block_bytes, 0);
        assert!(shelf.lock().unwrap().log.contains(&"setblk 0".to_string()));
    }

    #[test]
    fn a_drive_that_refuses_variable_mode_is_refused_with_the_fix() {
        let (mut d, shelf) = Emulated::new("/dev/nst0", vec![Cartridge::blank(1 << 20, 0)]);
        {
            let mut lib = shelf.lock().unwrap();
            lib.block_bytes = 1024;
            lib.refuse_setblk = true;
        }
        let e = ensure_variable(&mut d).unwrap_err().to_string();
        assert!(e.contains("fixed-block mode (1024-byte blocks)"), "{e}");
        assert!(e.contains("run 'mt -f /dev/nst0 setblk 0'"), "{e}");
    }
}
