//! What to do with a tape when tapebuf is done with it: leave it, rewind
//! it, or eject it.

use crate::tape::drive::{Drive, TapeOp};

/// What to do with a tape when tapebuf is done with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AtEnd {
    /// Leave it where it is (after the filemark, on a no-rewind device).
    #[default]
    Stay,
    Rewind,
    /// Rewind and eject (MTOFFL).
    Eject,
}

impl AtEnd {
    /// Does this to `drive`, then closes it (an output drive writes its
    /// filemark first if the last operation was a write).
    pub fn finish(self, drive: &mut dyn Drive) -> std::io::Result<()> {
        match self {
            AtEnd::Stay => {}
            AtEnd::Rewind => drive.op(TapeOp::Rewind)?,
            AtEnd::Eject => drive.op(TapeOp::Unload)?,
        }
        drive.close()
    }
}
