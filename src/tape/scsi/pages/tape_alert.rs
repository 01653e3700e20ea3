//! TapeAlert: the 64 flags a drive raises about itself and its cartridge
//! (SSC's log page 0x2E), named in words. The page is read with LOG SENSE
//! through SG_IO on the tape node (`Drive::tape_alerts`); reading it
//! clears the flags in the drive, so whoever reads must keep what it saw.
//! Parsing is a pure function over the page's bytes: a truncated or
//! hostile page gives the flags it does hold, never a panic.

use std::fmt;

/// The TapeAlert log page's code.
pub const PAGE: u8 = 0x2e;

/// Flag 20: the drive must be cleaned now.
pub const CLEAN_NOW: u8 = 20;
/// Flag 21: the drive is due a routine cleaning.
pub const CLEAN_PERIODIC: u8 = 21;

/// A set of TapeAlert flags, numbered 1 to 64 as SSC numbers them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TapeAlerts(u64);

impl TapeAlerts {
    /// The flags set in a LOG SENSE reply for page 0x2E: a 4-byte header
    /// whose bytes 2-3 give the parameters' length, then parameters of a
    /// 2-byte code (the flag's number), a control byte, a length and the
    /// value, whose lowest bit is the flag. Anything beyond the bytes
    /// there, codes outside 1-64, and pages of another code are ignored.
    pub fn parse(page: &[u8]) -> TapeAlerts {
        let mut flags = TapeAlerts::default();
        if page.len() < 4 || page[0] & 0x3f != PAGE {
            return flags;
        }
        let length = usize::from(u16::from_be_bytes([page[2], page[3]]));
        let body = &page[4..page.len().min(4 + length)];
        let mut at = 0;
        while at + 4 <= body.len() {
            let code = u16::from_be_bytes([body[at], body[at + 1]]);
            let value_len = usize::from(body[at + 3]);
            let value = body.get(at + 4).copied().unwrap_or(0);
            if value_len > 0 && value & 1 == 1 {
                if let Ok(flag) = u8::try_from(code) {
                    flags.insert(flag);
                }
            }
            at += 4 + value_len;
        }
        flags
    }

    /// Adds flag `flag` (1-64); others are ignored.
    pub fn insert(&mut self, flag: u8) {
        if (1..=64).contains(&flag) {
            self.0 |= 1 << (flag - 1);
        }
    }

    /// Whether flag `flag` is set.
    pub fn contains(&self, flag: u8) -> bool {
        (1..=64).contains(&flag) && self.0 & (1 << (flag - 1)) != 0
    }

    /// Every flag of both.
    pub fn union(self, other: TapeAlerts) -> TapeAlerts {
        TapeAlerts(self.0 | other.0)
    }

    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The flags set, in order.
    pub fn flags(&self) -> impl Iterator<Item = u8> + '_ {
        (1..=64u8).filter(|&f| self.contains(f))
    }

    /// The drive asks to be cleaned (flag 20 or 21).
    pub fn wants_cleaning(&self) -> bool {
        self.contains(CLEAN_NOW) || self.contains(CLEAN_PERIODIC)
    }
}

/// "20 clean now, 21 clean periodic": each flag's number and name.
impl fmt::Display for TapeAlerts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for flag in self.flags() {
            if !first {
                write!(f, ", ")?;
            }
            first = false;
            write!(f, "{flag} {}", name(flag))?;
        }
        Ok(())
    }
}

/// A flag's name as SSC gives it, in lower case.
pub fn name(flag: u8) -> &'static str {
    const NAMES: [&str; 64] = [
        "read warning",
        "write warning",
        "hard error",
        "media",
        "read failure",
        "write failure",
        "media life",
        "not data grade",
        "write protect",
        "no removal",
        "cleaning media",
        "unsupported format",
        "recoverable mechanical cartridge failure",
        "unrecoverable mechanical cartridge failure",
        "memory chip in cartridge failure",
        "forced eject",
        "read only format",
        "tape directory corrupted on load",
        "nearing media life",
        "clean now",
        "clean periodic",
        "expired cleaning media",
        "invalid cleaning tape",
        "retension requested",
        "dual-port interface error",
        "cooling fan failure",
        "power supply failure",
        "power consumption",
        "drive maintenance",
        "hardware A",
        "hardware B",
        "interface",
        "eject media",
        "microcode update fail",
        "drive humidity",
        "drive temperature",
        "drive voltage",
        "predictive failure",
        "diagnostics required",
        "obsolete (40)",
        "obsolete (41)",
        "obsolete (42)",
        "obsolete (43)",
        "obsolete (44)",
        "obsolete (45)",
        "obsolete (46)",
        "obsolete (47)",
        "obsolete (48)",
        "diminished native capacity",
        "lost statistics",
        "tape directory invalid at unload",
        "tape system area write failure",
        "tape system area read failure",
        "no start of data",
        "loading failure",
        "unrecoverable unload failure",
        "automation interface failure",
        "microcode failure",
        "WORM medium integrity check failed",
        "WORM medium overwrite attempted",
        "reserved (61)",
        "reserved (62)",
        "reserved (63)",
        "reserved (64)",
    ];
    match flag {
        1..=64 => NAMES[usize::from(flag - 1)],
        _ => "not a TapeAlert flag",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page 0x2E with flags 1..=n, those in `set` set.
    fn page(n: u16, set: &[u16]) -> Vec<u8> {
        let mut body = Vec::new();
        for code in 1..=n {
            body.extend_from_slice(&code.to_be_bytes());
            body.extend_from_slice(&[0x00, 0x01, u8::from(set.contains(&code))]);
        }
        let mut page = vec![PAGE, 0];
        page.extend_from_slice(&(body.len() as u16).to_be_bytes());
        page.extend(body);
        page
    }

    #[test]
    fn the_flags_set_on_a_page_are_read_and_named() {
        let alerts = TapeAlerts::parse(&page(64, &[3, 20]));
        assert_eq!(alerts.flags().collect::<Vec<_>>(), vec![3, 20]);
        assert!(alerts.wants_cleaning());
        assert_eq!(alerts.to_string(), "3 hard error, 20 clean now");
    }

    #[test]
    fn a_truncated_or_hostile_page_gives_what_it_holds_and_never_panics() {
        let full = page(64, &[2, 21, 64]);
        for cut in 0..full.len() {
            let alerts = TapeAlerts::parse(&full[..cut]);
            assert!(alerts.flags().all(|f| [2, 21, 64].contains(&f)));
        }
        let mut lying = page(3, &[1]);
        lying[2] = 0xff;
        lying[3] = 0xff;
        assert_eq!(
            TapeAlerts::parse(&lying).flags().collect::<Vec<_>>(),
            vec![1]
        );
        let mut other = page(3, &[1]);
        other[0] = 0x2f;
        assert!(TapeAlerts::parse(&other).is_empty());
        assert!(TapeAlerts::parse(&[PAGE, 0, 0, 8, 0x01, 0x00, 0, 0xff, 1]).is_empty());
        assert_eq!(name(0), "not a TapeAlert flag");
    }
}
