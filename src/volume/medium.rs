//! What every volume medium is, read or written: the shared [`Medium`]
//! trait and the [`MediumKind`] that says what sort of medium it is.
//!
//! Reading (`source::ReadMedium`) and writing (`sink::WriteMedium`) are the
//! two faces of one medium; what they share is declared here once: the
//! name of volume `n`, opening it, the drive behind it, and its kind. All
//! that depends on tape-ness follows from the kind alone, so it is asked
//! one way: whether each read or write is one record, whether a volume
//! ends with a filemark (and its trailer is then a tape file of its own),
//! whether volumes are swapped, and whether a swapped volume is ejected.
//!
//! Ending a volume is each face's own, since the two end it differently:
//! a written volume gets its trailer (and with `--verify` a read-back), a
//! read one has had its trailer read and is only closed. The one volume
//! change (`next_volume.rs`) is handed the face's ending.

use std::io;

use crate::tape::drive::Drive;

/// What sort of medium a volume is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediumKind {
    /// A local tape drive: each read(2) or write(2) is one record.
    Tape,
    /// A tape drive (`device`: a path in `/dev/`) or a file on another
    /// host, over rmt.
    Remote { device: bool },
    /// Local files: numbered names follow one another; one name that is
    /// not numbered is the same path each time, on a swapped medium.
    Files { numbered: bool },
}

impl MediumKind {
    /// True for a tape here or over rmt: it gets the tape defaults, and a
    /// volume that is swapped is ejected first.
    pub fn is_tape(self) -> bool {
        !matches!(self, MediumKind::Files { .. })
    }

    /// True when each read or write is one whole tape record, never split
    /// by us (a local tape drive).
    pub fn whole_records(self) -> bool {
        self == MediumKind::Tape
    }

    /// True when every volume has the same name, so someone (a person or
    /// the change command) must swap the medium in between.
    pub fn needs_swap(self) -> bool {
        match self {
            MediumKind::Files { numbered } => !numbered,
            _ => true,
        }
    }

    /// Filemarks after a volume's data; where there is one, the volume's
    /// trailer is a tape file of its own (`trailer.rs`).
    pub fn filemarks(self) -> u32 {
        match self {
            MediumKind::Tape => 1,
            MediumKind::Remote { device } => u32::from(device),
            MediumKind::Files { .. } => 0,
        }
    }
}

/// One medium at a time, as a volume change sees it, whether it is read
/// or written.
pub trait Medium: Send {
    /// What sort of medium this is.
    fn kind(&self) -> MediumKind;

    /// The device or file volume `n` is on.
    fn volume_name(&self, n: u32) -> String;

    /// Opens volume `n` (2 and up), once it is in.
    fn open_volume(&mut self, n: u32) -> io::Result<()>;

    /// The local tape drive behind the medium, waited for after a change.
    fn drive(&mut self) -> Option<&mut dyn Drive> {
        None
    }

    /// True when every volume has the same name, so the medium must be
    /// swapped in between.
    fn needs_swap(&self) -> bool {
        self.kind().needs_swap()
    }
}

#[cfg(test)]
mod tests {
    use super::MediumKind::{self, Files, Remote, Tape};

    /// (kind, is_tape, whole_records, needs_swap, filemarks)
    const ANSWERS: [(MediumKind, bool, bool, bool, u32); 5] = [
        (Tape, true, true, true, 1),
        (Remote { device: true }, true, false, true, 1),
        (Remote { device: false }, true, false, true, 0),
        (Files { numbered: true }, false, false, false, 0),
        (Files { numbered: false }, false, false, true, 0),
    ];

    #[test]
    fn every_tape_question_is_answered_by_the_kind_alone() {
        for (kind, tape, records, swap, marks) in ANSWERS {
            assert_eq!(kind.is_tape(), tape, "{kind:?}");
            assert_eq!(kind.whole_records(), records, "{kind:?}");
            assert_eq!(kind.needs_swap(), swap, "{kind:?}");
            assert_eq!(kind.filemarks(), marks, "{kind:?}");
        }
    }
}
