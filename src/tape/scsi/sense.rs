//! Why a drive is not ready, in the drive's own words.
//!
//! MTIOCGET only says "not online", the same for a cartridge still
//! loading, a cleaning cartridge and a cartridge the drive cannot use, and
//! those want different answers: wait, or refuse at once. So a drive that
//! is not online is asked TEST UNIT READY through SG_IO on the st device
//! itself (st hands SG_IO to the drive), and the additional sense code of
//! its answer decides: 3A/xx no medium, 04/xx becoming ready, 30/03 a
//! cleaning cartridge, 30/xx a medium the drive cannot read or write. The
//! real driver and mhvtl answered so in the tape lab (tests/tapelab).
//! The command and the sense decoding are `sg_io.rs`'s.

use std::io;
use std::os::fd::BorrowedFd;
use std::time::Duration;

use crate::tape::scsi::sg_io::{self, Data, ScsiError, Sense};
use crate::tape::scsi::spc;

/// How long the drive may take to answer.
const TIMEOUT: Duration = Duration::from_secs(10);

/// What TEST UNIT READY said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    NoMedium,
    BecomingReady,
    CleaningCartridge,
    /// A medium the drive cannot use (30/xx other than 30/03).
    Incompatible,
    /// Any other sense: (key, ASC, ASCQ).
    Other(u8, u8, u8),
}

/// A cartridge that no wait makes ready, typed so that a caller that
/// treats a cleaning cartridge apart (a loader takes it back itself) need
/// not read the words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unusable {
    CleaningCartridge,
    /// A medium the drive cannot use.
    Incompatible,
}

impl Unusable {
    /// Why, for a message after "the cartridge in /dev/nst0".
    pub fn why(self) -> &'static str {
        match self {
            Unusable::CleaningCartridge => "is a cleaning cartridge",
            Unusable::Incompatible => "is a cartridge this drive cannot read or write",
        }
    }
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.why())
    }
}

impl Readiness {
    /// Why a cartridge cannot be used at all; None when waiting may help.
    pub fn unusable(self) -> Option<Unusable> {
        match self {
            Readiness::CleaningCartridge => Some(Unusable::CleaningCartridge),
            Readiness::Incompatible => Some(Unusable::Incompatible),
            _ => None,
        }
    }

    /// What the sense `sense` says of the drive's readiness.
    fn of(sense: Sense) -> Readiness {
        match (sense.asc, sense.ascq) {
            (0x3a, _) => Readiness::NoMedium,
            (0x04, _) => Readiness::BecomingReady,
            (0x30, 0x03) => Readiness::CleaningCartridge,
            (0x30, _) => Readiness::Incompatible,
            _ => Readiness::Other(sense.key, sense.asc, sense.ascq),
        }
    }
}

/// Sends TEST UNIT READY to the drive behind `fd` (an st device, opened
/// with O_NONBLOCK) and reads its sense data.
pub fn test_unit_ready(fd: BorrowedFd<'_>) -> io::Result<Readiness> {
    match sg_io::command(fd, &spc::test_unit_ready(), Data::None, TIMEOUT) {
        Ok(_) => Ok(Readiness::Ready),
        Err(ScsiError::Ioctl(e)) => Err(e),
        Err(ScsiError::Check(sense)) => Ok(Readiness::of(sense)),
        Err(ScsiError::Status { .. }) => Ok(Readiness::Other(0, 0, 0)),
    }
}

/// Reads fixed (70h/71h) or descriptor (72h/73h) sense data.
pub fn parse(sense: &[u8]) -> Readiness {
    Readiness::of(Sense::parse(sense).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(key: u8, asc: u8, ascq: u8) -> Vec<u8> {
        crate::tape::scsi::sg_io::Sense::fixed_bytes(key, asc, ascq)
    }

    #[test]
    fn sense_codes_say_what_the_drive_is_doing() {
        assert_eq!(parse(&fixed(2, 0x3a, 0)), Readiness::NoMedium);
        assert_eq!(parse(&fixed(2, 0x04, 0x01)), Readiness::BecomingReady);
        assert_eq!(parse(&fixed(2, 0x30, 0x03)), Readiness::CleaningCartridge);
        assert_eq!(parse(&fixed(2, 0x30, 0x00)), Readiness::Incompatible);
        assert_eq!(parse(&fixed(6, 0x28, 0)), Readiness::Other(6, 0x28, 0));
        assert_eq!(
            parse(&[0x72, 0x02, 0x30, 0x03]),
            Readiness::CleaningCartridge
        );
    }

    #[test]
    fn only_cleaning_and_incompatible_cartridges_are_unusable() {
        assert!(Readiness::CleaningCartridge
            .unusable()
            .unwrap()
            .why()
            .contains("cleaning"));
        assert!(Readiness::Incompatible.unusable().is_some());
        assert_eq!(Readiness::BecomingReady.unusable(), None);
        assert_eq!(Readiness::NoMedium.unusable(), None);
    }
}
